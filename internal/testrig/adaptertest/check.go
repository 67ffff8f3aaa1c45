package adaptertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcperr/mcperr/filter"
)

// Result is what a client received for one call, in SDK-neutral form.
type Result struct {
	// ProtocolErr is the JSON-RPC error the call failed with, if any.
	ProtocolErr error
	IsError     bool
	// Texts are the text blocks of the content, in order.
	Texts []string
	// Meta is the result's _meta.
	Meta map[string]any
	// StructuredContent is the result's structuredContent, if any.
	StructuredContent any
	// Raw is the whole result as the client received it, JSON-encoded: the
	// canary must not appear in it.
	Raw []byte
	// Typed is the envelope as the adapter's EnvelopeOf read it from the
	// result; the zero Envelope when it found none.
	Typed filter.Envelope
}

// EnvelopeVersion is the version of the envelope's form that the adapters
// send.
const EnvelopeVersion = 1

// found reports whether e is an envelope EnvelopeOf found, not the zero
// value it returns when there is none.
func found(e filter.Envelope) bool {
	return e.Version != 0 || e.Error || e.Code != "" || e.Message != ""
}

// Envelope returns the mcperr envelope in r's _meta, or nil.
func (r Result) Envelope() map[string]any {
	env, _ := r.Meta[filter.MetaKey].(map[string]any)
	return env
}

// Log captures the records a server writes, as JSON objects.
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Logger returns a logger that writes into l at every level.
func (l *Log) Logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Write implements io.Writer.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// Records returns the records written so far and forgets them.
func (l *Log) Records(t testing.TB) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	dec := json.NewDecoder(&l.buf)
	for dec.More() {
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("log record is not JSON: %v", err)
		}
		out = append(out, rec)
	}
	l.buf.Reset()
	return out
}

var refPattern = regexp.MustCompile(`\(ref: ([0-9a-f]{16})\)`)

// Check asserts that r and the records logged for the call are what c wants.
func Check(t *testing.T, c Case, r Result, records []map[string]any) {
	t.Helper()
	w := c.Want
	if bytes.Contains(r.Raw, []byte(Canary)) {
		t.Errorf("the canary secret reached the client: %s", r.Raw)
	}
	if r.ProtocolErr != nil && strings.Contains(r.ProtocolErr.Error(), Canary) {
		t.Errorf("the canary secret reached the client in a protocol error: %v", r.ProtocolErr)
	}
	if w.ProtocolError {
		if r.ProtocolErr == nil {
			t.Errorf("want a protocol error, got a result: %s", r.Raw)
		}
		return
	}
	if r.ProtocolErr != nil {
		t.Fatalf("want a tool result, got protocol error %v", r.ProtocolErr)
	}
	if r.IsError != w.IsError {
		t.Errorf("isError = %v, want %v (%s)", r.IsError, w.IsError, r.Raw)
	}
	if len(r.Texts) == 0 {
		t.Fatalf("result has no text content: %s", r.Raw)
	}
	env := r.Envelope()
	ref := ""
	if m := refPattern.FindStringSubmatch(r.Texts[0]); m != nil {
		ref = m[1]
	} else if s, ok := env["ref"].(string); ok {
		ref = s
	}
	wantText := strings.ReplaceAll(w.Text, "{ref}", ref)
	if r.Texts[0] != wantText {
		t.Errorf("text = %q, want %q", r.Texts[0], wantText)
	}
	switch got := r.Texts[1:]; {
	case w.Rest == nil && w.Code != "":
		// A case outside the table, which names no blocks: the default
		// rendering's one block, which starts with the code.
		if len(got) != 1 || !strings.HasPrefix(got[0], "Code: "+string(w.Code)+"\n") {
			t.Errorf("blocks after the message = %q, want one that starts with the code %s", got, w.Code)
		}
	default:
		wantRest := make([]string, len(w.Rest))
		for i, b := range w.Rest {
			wantRest[i] = strings.ReplaceAll(b, "{ref}", ref)
		}
		if !slices.Equal(got, wantRest) {
			t.Errorf("blocks after the message = %q, want %q", got, wantRest)
		}
	}
	switch {
	case w.Code == "" && env != nil:
		t.Errorf("want no error envelope, got %v", env)
	case w.Code == "" && found(r.Typed):
		t.Errorf("EnvelopeOf found %+v in a result without one", r.Typed)
	case w.Code != "":
		checkEnvelope(t, w, env, r.Typed, ref, wantText)
	}
	if w.IsError && r.StructuredContent != nil {
		t.Errorf("an error result carries structuredContent %v", r.StructuredContent)
	}
	checkLog(t, w, records, ref)
	if id, _ := env["requestId"].(string); env != nil && len(records) == 1 && records[0]["request_id"] != id {
		t.Errorf("the envelope's requestId %q is not the record's request_id %v", id, records[0]["request_id"])
	}
}

// checkTyped checks that the typed envelope says what the decoded one does.
func checkTyped(t *testing.T, env map[string]any, typed filter.Envelope) {
	t.Helper()
	if !found(typed) {
		t.Errorf("EnvelopeOf found no envelope in a result that has one: %v", env)
		return
	}
	if len(typed.Details) > 0 {
		var details map[string]any
		if err := json.Unmarshal(typed.Details, &details); err != nil || details == nil {
			t.Errorf("EnvelopeOf's details %s are not a JSON object: %v", typed.Details, err)
		}
	}
	b, err := json.Marshal(typed)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(back) != fmt.Sprint(env) {
		t.Errorf("EnvelopeOf read %v, the client decoded %v", back, env)
	}
}

func checkEnvelope(t *testing.T, w Expect, env map[string]any, typed filter.Envelope, ref, text string) {
	t.Helper()
	if env == nil {
		t.Fatalf("no error envelope in _meta[%q]", filter.MetaKey)
	}
	ValidateEnvelope(t, env)
	checkTyped(t, env, typed)
	if env["error"] != true || env["code"] != string(w.Code) || env["message"] != text {
		t.Errorf("envelope = %v, want error true, code %s, message %q", env, w.Code, text)
	}
	if env["version"] != float64(EnvelopeVersion) {
		t.Errorf("envelope version = %v, want %d", env["version"], EnvelopeVersion)
	}
	if w.Category != "" && env["category"] != w.Category {
		t.Errorf("envelope category = %v, want %s", env["category"], w.Category)
	}
	if got, _ := env["docUrl"].(string); got != w.DocURL {
		t.Errorf("envelope docUrl = %q, want %q", got, w.DocURL)
	}
	if got, _ := env["retryAfterSeconds"].(float64); got != w.RetryAfter {
		t.Errorf("envelope retryAfterSeconds = %v, want %v", got, w.RetryAfter)
	}
	if ts, _ := env["timestamp"].(string); ts == "" {
		t.Errorf("envelope has no timestamp: %v", env)
	}
	if id, _ := env["requestId"].(string); id == "" {
		t.Errorf("envelope has no requestId: %v", env)
	}
	if w.Masked || w.Server {
		if ref == "" || env["ref"] != ref {
			t.Errorf("server error: text ref %q, envelope ref %v; want the same non-empty ref", ref, env["ref"])
		}
	} else if r, has := env["ref"]; has {
		t.Errorf("a %s error carries a ref %v; only server errors have one", w.Code, r)
	}
	if w.Retryable != nil && env["retryable"] != *w.Retryable {
		t.Errorf("envelope retryable = %v, want %v", env["retryable"], *w.Retryable)
	}
	details, _ := env["details"].(map[string]any)
	for k, v := range w.Details {
		if fmt.Sprint(details[k]) != fmt.Sprint(v) {
			t.Errorf("details[%q] = %v, want %v (details %v)", k, details[k], v, details)
		}
	}
	if len(w.Fields) > 0 {
		vs, _ := details["violations"].([]any)
		var fields []string
		for _, v := range vs {
			m, _ := v.(map[string]any)
			fields = append(fields, fmt.Sprint(m["field"]))
			if _, has := m["value"]; has {
				t.Errorf("a violation carries its value to the client: %v", m)
			}
		}
		if fmt.Sprint(fields) != fmt.Sprint(w.Fields) {
			t.Errorf("violated fields = %v, want %v", fields, w.Fields)
		}
	}
}

func checkLog(t *testing.T, w Expect, records []map[string]any, ref string) {
	t.Helper()
	if len(records) != w.Logged {
		t.Fatalf("the call wrote %d log records, want %d: %v", len(records), w.Logged, records)
	}
	if w.Logged == 0 {
		return
	}
	rec := records[0]
	all, _ := json.Marshal(rec)
	level, _ := rec["level"].(string)
	if w.Masked || w.Server {
		if level != "ERROR" {
			t.Errorf("server error logged at %s, want ERROR", level)
		}
		if rec["ref"] != ref {
			t.Errorf("log record ref = %v, want %q", rec["ref"], ref)
		}
	} else if level == "ERROR" {
		t.Errorf("a %s error logged at ERROR, want below", w.Code)
	}
	if w.Code != "" && rec["code"] != string(w.Code) {
		t.Errorf("log record code = %v, want %s", rec["code"], w.Code)
	}
	for _, s := range w.LogContains {
		if !strings.Contains(string(all), s) {
			t.Errorf("log record lacks %q: %s", s, all)
		}
	}
}

// envelopeSchema is filter.EnvelopeSchema, compiled once.
var envelopeSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(filter.EnvelopeSchema()))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("envelope.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("envelope.schema.json")
})

// ValidateEnvelope fails t unless env, an envelope as a client decoded it
// (or any value whose JSON form is one), fits filter.EnvelopeSchema.
func ValidateEnvelope(t testing.TB, env any) {
	t.Helper()
	s, err := envelopeSchema()
	if err != nil {
		t.Fatalf("the envelope schema does not compile: %v", err)
	}
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatalf("envelope cannot be encoded: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("envelope is not JSON: %v", err)
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("envelope does not fit the schema: %v\nenvelope: %s", err, b)
	}
}
