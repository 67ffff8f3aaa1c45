package mcperrtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// failure collects what is wrong with a Result for one assertion, and
// reports it all in one call of Errorf.
type failure struct {
	what     string
	problems []string
}

func (f *failure) addf(format string, args ...any) {
	f.problems = append(f.problems, fmt.Sprintf(format, args...))
}

// report writes f's problems and what the client received, with any extra
// text, and reports whether there were none.
func (f *failure) report(tb testing.TB, res *Result, extra string) bool {
	tb.Helper()
	if len(f.problems) == 0 {
		return true
	}
	var b strings.Builder
	b.WriteString(f.what)
	b.WriteString(":\n")
	for _, p := range f.problems {
		b.WriteString("\t- ")
		b.WriteString(p)
		b.WriteString("\n")
	}
	b.WriteString(extra)
	b.WriteString(res.String())
	tb.Errorf("%s", b.String())
	return false
}

// toolResult checks that res is a tool result, and isError as wanted. It
// returns false when res is no tool result at all, and nothing else can be
// checked.
func (f *failure) toolResult(res *Result, isError bool) bool {
	switch {
	case res == nil:
		f.addf("there is no result (nil)")
		return false
	case res.ProtocolError != nil:
		f.addf("the server answered with a JSON-RPC error (code %d, %q), not a tool result", res.ProtocolError.Code, res.ProtocolError.Message)
		return false
	case res.IsError != isError:
		f.addf("isError is %t, want %t", res.IsError, isError)
	}
	return true
}

// message checks that content[0] is a text block and returns its text.
func (f *failure) message(res *Result) (string, bool) {
	switch {
	case len(res.Content) == 0:
		f.addf("the result has no content: the model reads no message")
		return "", false
	case res.Content[0].Type != "text":
		f.addf("content[0] is a %q block, want the text block of the message", res.Content[0].Type)
		return "", false
	}
	return res.Content[0].Text, true
}

// envelope checks that res carries an mcperr envelope with code and returns it.
func (f *failure) envelope(res *Result, code codes.Code) *filter.Envelope {
	env := res.Envelope
	if env == nil {
		f.addf("the result has no mcperr envelope in _meta[%q]", filter.MetaKey)
		return nil
	}
	if !env.Error {
		f.addf("the envelope's error is false, want true")
	}
	if env.Code != code {
		f.addf("the envelope's code is %s, want %s", env.Code, code)
	}
	return env
}

// AssertToolError asserts that the model got a tool error, an isError
// result, with code and message: the text of content[0] is message,
// exactly, and the mcperr envelope has code and the same message. It holds
// for any error mcperr answers with a code and a message: a ToolError, a
// domain error, a filter's Response. It reports whether it held; if not, it
// reports what is wrong and what the client received through tb.Errorf.
func AssertToolError(tb testing.TB, res *Result, code codes.Code, message string) bool {
	tb.Helper()
	f := &failure{what: fmt.Sprintf("mcperrtest.AssertToolError(%s, %q) failed", code, message)}
	if f.toolResult(res, true) {
		if text, ok := f.message(res); ok && text != message {
			f.addf("the message (content[0]) is %q, want %q", text, message)
		}
		if env := f.envelope(res, code); env != nil && env.Message != message {
			f.addf("the envelope's message is %q, want %q", env.Message, message)
		}
	}
	return f.report(tb, res, "")
}

// maskedText is the text of a masked error: `Internal error in tool "x"
// (ref: R).`, with R in the second group.
var maskedText = regexp.MustCompile(`^Internal error in tool ("(?:[^"\\]|\\.)*") \(ref: ([A-Za-z0-9._-]{1,64})\)\.$`)

// AssertMasked asserts that the call failed with an error that was masked:
// code INTERNAL_ERROR, the text `Internal error in tool "x" (ref: R).` and
// nothing else of the error, with x the tool called, and R the ref of the
// envelope and of exactly one record of log, at error level (for a call
// the server retried, of one record for each attempt, the last at error
// level). Nothing else of the error means: text blocks only, no structured
// content, and no part of the error the record holds (its whole text, and
// each of its words that has a character other than a letter, such as
// password=hunter2 or 10.0.0.5:5432) anywhere in what the client received,
// another block, the envelope or any other _meta key included. Under
// filter.WithRedaction the record holds no such parts: plant a canary and
// use AssertNoCanary too. It returns R, or "" if the assertion did not
// hold; then it reports what is wrong, what the client received and what
// the server logged through tb.Errorf.
func AssertMasked(tb testing.TB, res *Result, log *Log) (ref string) {
	tb.Helper()
	f := &failure{what: "mcperrtest.AssertMasked failed"}
	var recs []Record
	if log != nil {
		recs = log.Records()
	} else {
		f.addf("no Log to find the ref in: pass the Log whose Logger the server's pipeline logs to")
	}
	switch {
	case res != nil && res.ProtocolError != nil && res.Method != "" && res.Method != methodCallTool:
		ref = f.maskedRPC(res, recs, log != nil)
	case f.toolResult(res, true):
		ref = f.masked(res, recs, log != nil)
	}
	extra := ""
	if log != nil {
		extra = fmt.Sprintf("the server logged %d records:\n%s", len(recs), formatRecords(recs))
	}
	if !f.report(tb, res, extra) {
		return ""
	}
	return ref
}

// masked checks the text, envelope and log of a masked error, and returns
// its ref.
func (f *failure) masked(res *Result, recs []Record, checkLog bool) string {
	env := f.envelope(res, codes.InternalError)
	text, ok := f.message(res)
	if !ok {
		return ""
	}
	m := maskedText.FindStringSubmatch(text)
	if m == nil {
		f.addf(`the message (content[0]) is %q, want exactly Internal error in tool "x" (ref: R).`, text)
		return ""
	}
	ref := m[2]
	if res.Tool != "" && m[1] != strconv.Quote(res.Tool) {
		f.addf("the message names tool %s, want %q", m[1], res.Tool)
	}
	if env != nil {
		if env.Ref != ref {
			f.addf("the envelope's ref is %q, want the message's %q", env.Ref, ref)
		}
		if env.Message != text {
			f.addf("the envelope's message is %q, want the text of content[0]", env.Message)
		}
	}
	f.nothingElse(res)
	if checkLog {
		f.loggedOnce(res, recs, ref)
	}
	return ref
}

// maskedRPC checks the JSON-RPC error of a masked resources/read or
// prompts/get: code -32603, the masked text as its message, the envelope
// as its data where the SDK sends one (mcp-go sends none), and its record;
// it returns the ref.
func (f *failure) maskedRPC(res *Result, recs []Record, checkLog bool) string {
	pe := res.ProtocolError
	if pe.Code != -32603 {
		f.addf("the JSON-RPC error's code is %d, want -32603 (internal error)", pe.Code)
	}
	m := maskedRPCText.FindStringSubmatch(pe.Message)
	if m == nil {
		f.addf(`the JSON-RPC error's message is %q, want exactly Internal error in %s "x" (ref: R).`, pe.Message, nounOf(res.Method))
		return ""
	}
	ref := m[3]
	if m[1] != nounOf(res.Method) || res.Tool != "" && m[2] != strconv.Quote(res.Tool) {
		f.addf("the message names %s %s, want %s %q", m[1], m[2], nounOf(res.Method), res.Tool)
	}
	if len(pe.Data) > 0 && string(pe.Data) != "null" {
		var env filter.Envelope
		switch err := json.Unmarshal(pe.Data, &env); {
		case err != nil:
			f.addf("the JSON-RPC error's data is not an envelope: %v", err)
		case env.Code != codes.InternalError || env.Ref != ref || env.Message != pe.Message:
			f.addf("the envelope in the data is code %s, ref %q, message %q; want INTERNAL_ERROR, the message's ref and text", env.Code, env.Ref, env.Message)
		}
	}
	if checkLog {
		f.loggedOnce(res, recs, ref)
	}
	return ref
}

// nounOf names what method serves, as the masked text does.
func nounOf(method string) string {
	switch method {
	case "resources/read":
		return "resource"
	case "prompts/get":
		return "prompt"
	}
	return "tool"
}

// methodCallTool is the method of a tool call.
const methodCallTool = "tools/call"

var maskedRPCText = regexp.MustCompile(`^Internal error in (resource|prompt|tool) ("(?:[^"\\]|\\.)*") \(ref: ([A-Za-z0-9._-]{1,64})\)\.$`)

// loggedOnce checks that ref is named by exactly one record, at error
// level (one for each attempt of a retried call, the last at error level),
// and that no part of the errors they hold reached the client.
func (f *failure) loggedOnce(res *Result, recs []Record, ref string) {
	var named []Record
	for _, r := range recs {
		if names(r, ref) {
			named = append(named, r)
		}
	}
	// A call the server retried has one record an attempt, the last one
	// the failure the client read.
	want := 1
	if res.Envelope != nil && res.Envelope.Attempts > 1 {
		want = res.Envelope.Attempts
	}
	if len(named) != want {
		f.addf("ref %s is named by %d log records, want exactly %d (one for each attempt)", ref, len(named), want)
		return
	}
	last := named[len(named)-1]
	switch {
	case last.Level < slog.LevelError:
		f.addf("the record of ref %s is at level %s, want ERROR", ref, last.Level)
	case last.Attrs["ref"] != ref:
		f.addf("the record naming %s has ref attribute %v, want %s", ref, last.Attrs["ref"], ref)
	case want > 1 && fmt.Sprint(last.Attrs["attempt"]) != strconv.Itoa(want):
		f.addf("the last record naming %s has attempt %v, want %d", ref, last.Attrs["attempt"], want)
	}
	for _, r := range named {
		if errText, ok := r.Attrs["error"].(string); ok {
			f.nothingOf(res, errText)
		}
	}
}

// nothingElse checks the form of a masked error result: text blocks only,
// and no structured content.
func (f *failure) nothingElse(res *Result) {
	if len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		f.addf("the result has structuredContent %s: a masked error sends none", res.StructuredContent)
	}
	for i, c := range res.Content {
		if c.Type != "text" {
			f.addf("content[%d] is a %q block: a masked error sends text only", i, c.Type)
		}
	}
}

// nothingOf checks that no part of errText, the masked error as the log
// holds it, is in any byte the client received: the whole text, and each
// of its words that holds a character other than a letter (an address, a
// key=value, a path, a number), six characters or longer, unless the
// masked text itself holds it. A redacted error has no such parts.
func (f *failure) nothingOf(res *Result, errText string) {
	allowed := res.Text()
	if res.ProtocolError != nil {
		allowed += res.ProtocolError.Message + string(res.ProtocolError.Data)
	}
	if res.Envelope != nil {
		if b, err := json.Marshal(res.Envelope); err == nil {
			allowed += string(b)
		}
	}
	seen := map[string]bool{}
	for _, part := range errorParts(errText) {
		if seen[part] || strings.Contains(allowed, part) {
			continue
		}
		seen[part] = true
		for _, form := range escapedForms(part) {
			if bytes.Contains(res.Raw, []byte(form)) {
				f.addf("the client received %q, a part of the masked error %q", part, errText)
				break
			}
		}
	}
}

// errorParts returns the parts of an error's text whose presence in a
// response means the error leaked.
func errorParts(text string) []string {
	var parts []string
	if len(text) >= 8 {
		parts = append(parts, text)
	}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(`,;"'()[]{}`, r)
	}) {
		w = strings.TrimRight(w, ".:")
		if len(w) >= 6 && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			parts = append(parts, w)
		}
	}
	return parts
}

// AssertValidation asserts that the call's arguments were refused: an
// isError result with code VALIDATION_ERROR, a message in content[0] equal
// to the envelope's, whose details name exactly fields (in any order) as
// violations[].field, and no violation carries the value that was refused.
// With no fields, any violated fields will do, but there must be one.
func AssertValidation(tb testing.TB, res *Result, fields ...string) bool {
	tb.Helper()
	what := "mcperrtest.AssertValidation failed"
	if len(fields) > 0 {
		what = fmt.Sprintf("mcperrtest.AssertValidation(%s) failed", strings.Join(fields, ", "))
	}
	f := &failure{what: what}
	if f.toolResult(res, true) {
		text, ok := f.message(res)
		if env := f.envelope(res, codes.ValidationError); env != nil {
			if ok && env.Message != text {
				f.addf("the message (content[0]) is %q, the envelope's %q; want the same", text, env.Message)
			}
			f.violations(env, fields)
		}
	}
	return f.report(tb, res, "")
}

// violations checks the fields the envelope's details name.
func (f *failure) violations(env *filter.Envelope, want []string) {
	var details struct {
		Violations []any `json:"violations"`
	}
	if len(env.Details) > 0 {
		if err := json.Unmarshal(env.Details, &details); err != nil {
			f.addf("the envelope's details are not a JSON object: %v: %s", err, env.Details)
			return
		}
	}
	vs := details.Violations
	if len(vs) == 0 {
		f.addf("the envelope's details have no violations[]: %s", env.Details)
		return
	}
	var got []string
	for i, v := range vs {
		m, _ := v.(map[string]any)
		field, ok := m["field"].(string)
		if !ok {
			f.addf("violations[%d] names no field: %v", i, v)
			continue
		}
		got = append(got, field)
		if _, has := m["value"]; has {
			f.addf("violations[%d] carries the refused value to the client", i)
		}
	}
	if len(want) == 0 {
		return
	}
	g, w := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if !slices.Equal(g, w) {
		f.addf("the violated fields are %q, want %q", got, want)
	}
}

// AssertNoCanary asserts that canary, a secret the test planted where only
// the server should see it (an internal error, a panic value, a refused
// argument), is in no byte the client received during the call: not in the
// response, nor in any notification or request the server sent while the
// call was in flight (Result.Received); not as written, not in any
// JSON-escaped form, not in any key or string once decoded.
// canary must not be empty.
func AssertNoCanary(tb testing.TB, res *Result, canary string) bool {
	tb.Helper()
	if canary == "" {
		tb.Fatalf("mcperrtest.AssertNoCanary: the canary is empty; plant a string no response would hold by chance")
		return false
	}
	f := &failure{what: fmt.Sprintf("mcperrtest.AssertNoCanary(%q) failed", canary)}
	switch {
	case res == nil:
		f.addf("there is no result (nil)")
	case len(res.Raw) == 0:
		f.addf("the result holds no raw response to search")
	default:
		f.noCanaryIn(res.Raw, "", canary)
		for i, msg := range res.Received {
			f.noCanaryIn(msg, fmt.Sprintf("received[%d] (a %s)", i, kindOf(msg)), canary)
		}
	}
	return f.report(tb, res, "")
}

// noCanaryIn checks one message the client received for canary; where
// names it, when it is not the response itself.
func (f *failure) noCanaryIn(msg []byte, where, canary string) {
	in := ""
	if where != "" {
		in = " in " + where
	}
	for _, form := range escapedForms(canary) {
		if bytes.Contains(msg, []byte(form)) {
			f.addf("the client received the canary as %q%s", form, in)
			break
		}
	}
	var v any
	if err := json.Unmarshal(msg, &v); err != nil {
		what := "the response"
		if where != "" {
			what = where
		}
		f.addf("%s is not JSON (%v), so its decoded strings cannot be searched", what, err)
		return
	}
	for _, at := range pathsHolding(v, "", canary) {
		f.addf("the client received the canary in %s%s", at, in)
	}
}

// kindOf names a JSON-RPC message by its method.
func kindOf(msg []byte) string {
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method == "" {
		return "message"
	}
	return m.Method
}

// escapedForms returns canary as written and as a JSON encoder writes it,
// with and without HTML escaping.
func escapedForms(canary string) []string {
	forms := []string{canary}
	for _, html := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		_ = enc.Encode(canary) // a string always encodes
		s := strings.TrimSuffix(b.String(), "\n")
		s = s[1 : len(s)-1]
		if !slices.Contains(forms, s) {
			forms = append(forms, s)
		}
	}
	return forms
}

// pathsHolding returns where in the decoded JSON v a key or string holds
// canary, as paths like result.content[0].text.
func pathsHolding(v any, path, canary string) []string {
	var out []string
	switch v := v.(type) {
	case string:
		if strings.Contains(v, canary) {
			out = append(out, orRoot(path))
		}
	case []any:
		for i, e := range v {
			out = append(out, pathsHolding(e, fmt.Sprintf("%s[%d]", path, i), canary)...)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if strings.Contains(k, canary) {
				out = append(out, "the key "+strconv.Quote(k)+" of "+orRoot(path))
			}
			out = append(out, pathsHolding(v[k], p, canary)...)
		}
	}
	return out
}

func orRoot(path string) string {
	if path == "" {
		return "the response"
	}
	return path
}

// AssertSuccess asserts that the call succeeded and mcperr left it alone:
// a tool result, not isError, with no mcperr envelope in its _meta.
func AssertSuccess(tb testing.TB, res *Result) bool {
	tb.Helper()
	f := &failure{what: "mcperrtest.AssertSuccess failed"}
	if f.toolResult(res, false) {
		if res.IsError {
			f.addf("the model read %q", res.Text())
		}
		if _, has := res.Meta[filter.MetaKey]; has {
			f.addf("the result carries an mcperr envelope in _meta[%q]", filter.MetaKey)
		}
	}
	return f.report(tb, res, "")
}

// AssertProtocolError asserts that the server answered the call with a
// JSON-RPC error of code, not a tool result: what an unknown tool, or a
// go-sdk handler's deliberate *jsonrpc.Error, gives.
func AssertProtocolError(tb testing.TB, res *Result, code int64) bool {
	tb.Helper()
	f := &failure{what: fmt.Sprintf("mcperrtest.AssertProtocolError(%d) failed", code)}
	switch {
	case res == nil:
		f.addf("there is no result (nil)")
	case res.ProtocolError == nil:
		f.addf("the server answered with a tool result (isError: %t), not a JSON-RPC error", res.IsError)
	case res.ProtocolError.Code != code:
		f.addf("the JSON-RPC error's code is %d, want %d", res.ProtocolError.Code, code)
	}
	return f.report(tb, res, "")
}

// AssertAttempts asserts that the server called the tool attempts times
// to answer res (filter.WithRetries), as the log says: one record for each
// failed attempt, numbered from 1 in its "attempt" attribute, the records
// sharing one ref and one request id. For a failure, those are the records
// that name the envelope's ref, whose attempts say the same (absent for a
// call made once); for a success, they are the newest records of the tool
// with an attempt number, attempts - 1 of them. It reports what is wrong
// through tb.Errorf, and whether the assertion held.
func AssertAttempts(tb testing.TB, res *Result, log *Log, attempts int) bool {
	tb.Helper()
	f := &failure{what: fmt.Sprintf("mcperrtest.AssertAttempts(%d) failed", attempts)}
	var recs, all []Record
	if log != nil {
		all = log.Records()
	}
	switch {
	case log == nil:
		f.addf("no Log to count the attempts in: pass the Log whose Logger the server's pipeline logs to")
	case !f.toolResult(res, res != nil && res.IsError):
	case res.IsError:
		env := res.Envelope
		if env == nil {
			f.addf("the result has no mcperr envelope in _meta[%q]", filter.MetaKey)
			break
		}
		if want := map[bool]int{true: attempts}[attempts > 1]; env.Attempts != want {
			f.addf("the envelope's attempts is %d, want %d", env.Attempts, want)
		}
		if attempts == 1 && env.Ref == "" {
			break // a client error made once has no ref, and its record no attempt
		}
		recs = log.WithRef(env.Ref)
		if len(recs) != attempts {
			f.addf("%d records name the ref %q, want one for each of the %d attempts", len(recs), env.Ref, attempts)
		}
	default:
		for i := len(all) - 1; i >= 0; i-- {
			r := all[i]
			if r.Attrs["tool"] != res.Tool || r.Attrs["attempt"] == nil ||
				len(recs) > 0 && r.Attrs["request_id"] != recs[0].Attrs["request_id"] {
				continue
			}
			recs = append([]Record{r}, recs...)
		}
		if len(recs) != attempts-1 {
			f.addf("%d records of failed attempts of tool %q, want %d", len(recs), res.Tool, attempts-1)
		}
	}
	for i, r := range recs {
		if attempts > 1 && fmt.Sprint(r.Attrs["attempt"]) != strconv.Itoa(i+1) {
			f.addf("record %d has attempt %v, want %d: %s", i, r.Attrs["attempt"], i+1, r)
		}
		if r.Attrs["ref"] != recs[0].Attrs["ref"] || r.Attrs["request_id"] != recs[0].Attrs["request_id"] {
			f.addf("record %d has ref %v and request id %v, not the first's: %s", i, r.Attrs["ref"], r.Attrs["request_id"], r)
		}
	}
	return f.report(tb, res, fmt.Sprintf("the server logged %d records:\n%s", len(all), formatRecords(all)))
}
