package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/gosdkcompat"
	"github.com/mcperr/mcperr/mcperrtest"
)

// Failure is how a case ends on the bare server.
type Failure int

const (
	// Succeeds: the tool answers with a result that is not an error.
	Succeeds Failure = iota
	// Returns: the handler returns a Go error, or, on go-sdk, marks its
	// result with SetError.
	Returns
	// Refused: the SDK refuses the arguments before the handler runs.
	Refused
	// Panics: the handler panics.
	Panics
	// HandBuilt: the handler builds an error result itself.
	HandBuilt
)

// String names the failure.
func (f Failure) String() string {
	switch f {
	case Succeeds:
		return "succeeds"
	case Returns:
		return "returns an error"
	case Refused:
		return "refused by the SDK"
	case Panics:
		return "panics"
	case HandBuilt:
		return "hand-built error result"
	}
	return fmt.Sprintf("Failure(%d)", int(f))
}

// Case is one call of a server's table.
type Case struct {
	// Name names the case; unique in its table.
	Name string
	// Tool and Args are the call.
	Tool string
	Args map[string]any
	// Bare is what the bare server's client receives, exactly: the JSON of
	// the result or of the JSON-RPC error (see Answer.Bytes), in which each
	// ${name} is replaced by the JSON-escaped value of a variable of the
	// table.
	Bare string
	// Failure is how the call ends on the bare server.
	Failure Failure
	// Enforced is the code mcperr, enforcing, answers a failure with
	// instead of the bare answer: codes.InternalError for an error it
	// masks, codes.ValidationError for arguments that do not fit the
	// schema, or "" when the client receives the same bytes as bare.
	Enforced codes.Code
	// Fields are the fields a VALIDATION_ERROR names.
	Fields []string
	// Secrets are texts of the bare answer (${name} expanded) that no byte
	// may hold where mcperr masks the failure.
	Secrets []string
	// Logged is text of the original failure that the record of a masked
	// failure holds (${name} expanded).
	Logged string
}

// Want is what a configuration of mcperr must do with one case.
type Want int

const (
	// Same: the bytes of the bare answer, and no record.
	Same Want = iota
	// SameReported: the bytes of the bare answer, and one report-only
	// record of what mcperr would have sent.
	SameReported
	// SameWarned: the bytes of the bare answer, and one WARN record of a
	// hand-built error result, with a ref.
	SameWarned
	// Masked: `Internal error in tool "x" (ref: R).`, code
	// INTERNAL_ERROR, and one ERROR record with R holding the error.
	Masked
	// Validation: VALIDATION_ERROR naming the case's fields, and one
	// record below error level.
	Validation
	// MaskedHandBuilt: as Masked, for a hand-built error result; the
	// record says hand_built and holds the result's text.
	MaskedHandBuilt
	// SameReportedMasked: the bytes of the bare answer, and one
	// report-only record saying that mcperr would have masked the
	// hand-built error result.
	SameReportedMasked
)

// String names the expectation.
func (w Want) String() string {
	return [...]string{"same as bare", "same as bare, reported", "same as bare, warned", "masked", "validation error", "hand-built, masked", "same as bare, reported as masked"}[w]
}

// Enforcing is what mcperr does enforcing with the default policy for
// hand-built results (filter.PassHandBuilt), as docs/migrating.md says:
// successes and hand-built results are untouched, returned errors and
// panics masked, arguments that do not fit a VALIDATION_ERROR.
func Enforcing(c Case) Want {
	switch c.Failure {
	case Succeeds, HandBuilt:
		return Same
	}
	if c.Enforced == codes.ValidationError {
		return Validation
	}
	return Masked
}

// ReportOnly is what mcperr does in report-only mode: every answer as
// bare, every failure reported once.
func ReportOnly(c Case) Want {
	if c.Failure == Succeeds {
		return Same
	}
	return SameReported
}

// HandBuiltReported is Enforcing under filter.ReportHandBuilt.
func HandBuiltReported(c Case) Want {
	if c.Failure == HandBuilt {
		return SameWarned
	}
	return Enforcing(c)
}

// HandBuiltMasked is Enforcing under filter.MaskHandBuilt.
func HandBuiltMasked(c Case) Want {
	if c.Failure == HandBuilt {
		return MaskedHandBuilt
	}
	return Enforcing(c)
}

// ReportOnlyMaskingHandBuilt is ReportOnly under filter.MaskHandBuilt:
// the record of a hand-built error result says that it would be masked.
func ReportOnlyMaskingHandBuilt(c Case) Want {
	if c.Failure == HandBuilt {
		return SameReportedMasked
	}
	return ReportOnly(c)
}

// Modes are the server-wide configurations every table runs in.
func Modes() []Config {
	return []Config{
		{Name: "enforcing", Want: Enforcing},
		{Name: "report-only", Options: []filter.Option{filter.WithReportOnly(true)}, Want: ReportOnly},
		{Name: "hand-built-report", Options: []filter.Option{filter.WithHandBuilt(filter.ReportHandBuilt)}, Want: HandBuiltReported},
		{Name: "hand-built-mask", Options: []filter.Option{filter.WithHandBuilt(filter.MaskHandBuilt)}, Want: HandBuiltMasked},
		{Name: "report-only-hand-built-mask", Options: []filter.Option{filter.WithReportOnly(true), filter.WithHandBuilt(filter.MaskHandBuilt)}, Want: ReportOnlyMaskingHandBuilt},
	}
}

// PerTool are configurations in which the options of one tool override
// the server's: the cases of tool get what the tool's options say, the
// others what the server's say.
func PerTool(tool string) []Config {
	on, off := true, false
	pass, mask := filter.PassHandBuilt, filter.MaskHandBuilt
	split := func(mine, others func(Case) Want) func(Case) Want {
		return func(c Case) Want {
			if c.Tool == tool {
				return mine(c)
			}
			return others(c)
		}
	}
	return []Config{
		{Name: "report-only-but-" + tool, Options: []filter.Option{filter.WithReportOnly(true)},
			Tools: map[string]ToolOptions{tool: {ReportOnly: &off}}, Want: split(Enforcing, ReportOnly)},
		{Name: "enforcing-but-" + tool, Tools: map[string]ToolOptions{tool: {ReportOnly: &on}}, Want: split(ReportOnly, Enforcing)},
		{Name: "hand-built-mask-but-" + tool, Options: []filter.Option{filter.WithHandBuilt(filter.MaskHandBuilt)},
			Tools: map[string]ToolOptions{tool: {HandBuilt: &pass}}, Want: split(Enforcing, HandBuiltMasked)},
		{Name: "enforcing-hand-built-mask-" + tool, Tools: map[string]ToolOptions{tool: {HandBuilt: &mask}}, Want: split(HandBuiltMasked, Enforcing)},
	}
}

// Config is one way of serving the table.
type Config struct {
	// Name names the subtest.
	Name string
	// Options are the options of the pipeline installed on the server,
	// beside its logger.
	Options []filter.Option
	// Tools holds per-tool options, by tool name.
	Tools map[string]ToolOptions
	// Want says what the configuration must do with each case.
	Want func(Case) Want
}

// ToolOptions are the options an adopter gives one tool, in the form of
// filter.WithReportOnly and filter.WithHandBuilt; nil leaves the server's.
type ToolOptions struct {
	ReportOnly *bool
	HandBuilt  *filter.HandBuilt
}

// Pipeline returns the options of the pipeline of c, with logger: its
// Options, and its Tools declared by name with filter.ForTool, as an
// adopter declares the options of tools that something else adds.
func (c Config) Pipeline(logger *slog.Logger) []filter.Option {
	opts := append(append([]filter.Option(nil), c.Options...), filter.WithLogger(logger))
	for tool, o := range c.Tools {
		var own []filter.ToolOption
		if o.ReportOnly != nil {
			own = append(own, filter.WithReportOnly(*o.ReportOnly))
		}
		if o.HandBuilt != nil {
			own = append(own, filter.WithHandBuilt(*o.HandBuilt))
		}
		opts = append(opts, filter.ForTool(tool, own...))
	}
	return opts
}

// recordedElsewhere says why the bare answers cannot be checked against
// the tables in this build, or "" if they can: the tables were recorded
// with go-sdk v1.8.0 and mcp-go v1.2.1, and the bytes a bare go-sdk server
// sends differ before v1.8.0 (it adds serverInfo to _meta from v1.8.0).
// The configurations are still checked against this build's bare answers.
func recordedElsewhere() string {
	if !gosdkcompat.CanChooseVersion() {
		return "the tables' bare answers were recorded with go-sdk v1.8.0; this build has an older go-sdk: each configuration is still checked against this build's bare answers"
	}
	return ""
}

// Start builds the server for cfg and connects a client to it: without
// mcperr when install is false; otherwise with a pipeline of cfg.Options
// and logger, installed at the server's constructor.
type Start func(t *testing.T, cfg Config, install bool, logger *slog.Logger) Client

// Run calls every case of the table, in order, first on the bare server,
// asserting each answer against the case's Bare, then on a fresh server for
// each configuration, asserting each answer against the bare one and the
// configuration's Want. vars are the table's variables.
func Run(t *testing.T, cases []Case, vars map[string]string, start Start, configs ...Config) {
	t.Helper()
	checkTable(t, cases)
	ex := expander(vars)
	bare := make(map[string]Answer, len(cases))
	runBare := func(t *testing.T) {
		c := start(t, Config{Name: "bare"}, false, nil)
		for _, tc := range cases {
			bare[tc.Name] = c.Call(t, tc.Tool, ex.args(tc.Args))
		}
		if reason := recordedElsewhere(); reason != "" {
			t.Skip(reason)
		}
		for _, tc := range cases {
			if a, want := bare[tc.Name], ex.json(tc.Bare); string(a.Bytes) != want {
				t.Errorf("%s: the bare server sent\n%s\nwant\n%s", tc.Name, a.Bytes, want)
			}
		}
	}
	t.Run("bare", runBare)
	if len(bare) == 0 {
		// -run left the subtest out; the other configurations still need
		// the bare answers.
		runBare(t)
	}
	for _, cfg := range configs {
		t.Run(cfg.Name, func(t *testing.T) {
			log := mcperrtest.NewLog(t)
			c := start(t, cfg, true, log.Logger())
			for _, tc := range cases {
				t.Run(tc.Name, func(t *testing.T) {
					before := len(log.Records())
					a := c.Call(t, tc.Tool, ex.args(tc.Args))
					recs := log.Records()[before:]
					b, ok := bare[tc.Name]
					if !ok {
						t.Fatal("no bare answer to compare with")
					}
					check(t, tc, cfg.Want(tc), b, a, recs, ex)
				})
			}
		})
	}
}

// checkTable refuses a table whose cases contradict themselves.
func checkTable(t *testing.T, cases []Case) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Name] {
			t.Fatalf("case %q appears twice", c.Name)
		}
		seen[c.Name] = true
		switch {
		case (c.Failure == Succeeds || c.Failure == HandBuilt) && c.Enforced != "":
			t.Fatalf("case %q: a %s is sent as it is; Enforced must be empty", c.Name, c.Failure)
		case c.Failure != Succeeds && c.Failure != HandBuilt && c.Enforced == "":
			t.Fatalf("case %q: a failure that %s needs Enforced", c.Name, c.Failure)
		case (c.Enforced == codes.ValidationError) != (len(c.Fields) > 0):
			t.Fatalf("case %q: Fields go with VALIDATION_ERROR, and only with it", c.Name)
		}
	}
}

// check asserts that got, the answer of a configuration that wants want
// for tc, and the records written during the call, are what they must be
// beside bare.
func check(t *testing.T, tc Case, want Want, bare, got Answer, recs []mcperrtest.Record, ex expand) {
	t.Helper()
	defer func() {
		if t.Failed() {
			t.Logf("want %s\nbare sent %s\ngot       %s\nrecords:\n%s", want, bare.Bytes, got.Bytes, records(recs))
		}
	}()
	same := bytes.Equal(bare.Bytes, got.Bytes)
	if !same {
		t.Logf("differs from bare: %s", got.Bytes)
	}
	if len(recs) > 0 {
		t.Logf("logged:\n%s", records(recs))
	}
	switch want {
	case Same, SameReported, SameWarned, SameReportedMasked:
		if !same {
			t.Errorf("the client received bytes that differ from bare")
		}
	}
	switch want {
	case Same:
		if len(recs) != 0 {
			t.Errorf("%d records, want none", len(recs))
		}
	case SameReported:
		checkReported(t, tc, bare, recs, false)
	case SameReportedMasked:
		checkReported(t, tc, bare, recs, true)
	case SameWarned:
		if r, ok := one(t, recs); ok {
			if r.Level != slog.LevelWarn {
				t.Errorf("record at %s, want WARN", r.Level)
			}
			wantAttr(t, r, "hand_built", true)
			wantAttr(t, r, "code", string(codes.ToolFailed))
			if s, _ := r.Attrs["ref"].(string); s == "" {
				t.Errorf("the record has no ref")
			}
			if !recordHolds(r, strings.Join(bare.Texts, "\n")) {
				t.Errorf("the record does not hold the result's text %q", bare.Texts)
			}
		}
	case Masked, MaskedHandBuilt:
		ref := checkMasked(t, tc, got, ex)
		if r, ok := one(t, recs); ok {
			if r.Level != slog.LevelError {
				t.Errorf("record at %s, want ERROR", r.Level)
			}
			wantAttr(t, r, "ref", ref)
			wantAttr(t, r, "code", string(codes.InternalError))
			holds := ex.raw(tc.Logged)
			if want == MaskedHandBuilt {
				wantAttr(t, r, "hand_built", true)
				holds = strings.Join(bare.Texts, "\n")
			}
			if holds != "" && !recordHolds(r, holds) {
				t.Errorf("the record does not hold %q", holds)
			}
		}
	case Validation:
		checkValidation(t, tc, got, ex)
		if r, ok := one(t, recs); ok {
			if r.Level >= slog.LevelError {
				t.Errorf("record at %s, want below ERROR", r.Level)
			}
			wantAttr(t, r, "code", string(codes.ValidationError))
		}
	}
}

// checkReported asserts the one report-only record of a failure; for a
// hand-built error result, maskHandBuilt says whether the policy masks it.
func checkReported(t *testing.T, tc Case, bare Answer, recs []mcperrtest.Record, maskHandBuilt bool) {
	t.Helper()
	r, ok := one(t, recs)
	if !ok {
		return
	}
	wantAttr(t, r, "report_only", true)
	for _, k := range []string{"code", "masked", "would_send"} {
		if _, ok := r.Attrs[k]; !ok {
			t.Errorf("the record has no %s", k)
		}
	}
	ref, _ := r.Attrs["ref"].(string)
	masked, _ := r.Attrs["masked"].(bool)
	code := tc.Enforced
	if tc.Failure == HandBuilt {
		wantAttr(t, r, "hand_built", true)
		if !maskHandBuilt {
			// What mcperr would send is the result as it is.
			wantAttr(t, r, "masked", false)
			wantAttr(t, r, "code", string(codes.ToolFailed))
			wantAttr(t, r, "would_send", strings.Join(bare.Texts, "\n"))
			if ref == "" {
				t.Errorf("the record of a hand-built result has no ref")
			}
			return
		}
		code = codes.InternalError
	}
	wantAttr(t, r, "code", string(code))
	switch code {
	case codes.InternalError:
		wantAttr(t, r, "masked", true)
		if r.Level != slog.LevelError {
			t.Errorf("record at %s, want ERROR, as enforcing", r.Level)
		}
		if ref == "" {
			t.Errorf("the record of a masked failure has no ref")
		}
		wantAttr(t, r, "would_send", fmt.Sprintf("Internal error in tool %q (ref: %s).", tc.Tool, ref))
	case codes.ValidationError:
		if masked {
			t.Errorf("masked=true for a VALIDATION_ERROR")
		}
		if r.Level >= slog.LevelError {
			t.Errorf("record at %s, want below ERROR, as enforcing", r.Level)
		}
		if s, _ := r.Attrs["would_send"].(string); s == "" {
			t.Errorf("would_send is empty")
		}
	}
}

// checkMasked asserts that got is the masked error of tc's tool, and
// returns its ref.
func checkMasked(t *testing.T, tc Case, got Answer, ex expand) string {
	t.Helper()
	env := checkEnvelope(t, tc, got, codes.InternalError, ex)
	if env == nil {
		return ""
	}
	if want := fmt.Sprintf("Internal error in tool %q (ref: %s).", tc.Tool, env.Ref); env.Ref == "" || env.Message != want {
		t.Errorf("message %q, want %q", env.Message, want)
	}
	return env.Ref
}

// checkValidation asserts that got is the VALIDATION_ERROR of tc.
func checkValidation(t *testing.T, tc Case, got Answer, ex expand) {
	t.Helper()
	env := checkEnvelope(t, tc, got, codes.ValidationError, ex)
	if env == nil {
		return
	}
	var details struct {
		Violations []struct {
			Field string `json:"field"`
		} `json:"violations"`
	}
	if err := json.Unmarshal(env.Details, &details); err != nil {
		t.Errorf("details %s: %v", env.Details, err)
	}
	var fields []string
	for _, v := range details.Violations {
		fields = append(fields, v.Field)
	}
	slices.Sort(fields)
	want := slices.Sorted(slices.Values(tc.Fields))
	if !slices.Equal(fields, want) {
		t.Errorf("violations name %q, want %q", fields, want)
	}
}

// checkEnvelope asserts what every error result of mcperr holds: a tool
// result with isError, the envelope of code, the texts the default renderer
// makes of it, and none of the case's secrets.
func checkEnvelope(t *testing.T, tc Case, got Answer, code codes.Code, ex expand) *filter.Envelope {
	t.Helper()
	for _, s := range tc.Secrets {
		s = ex.raw(s)
		if bytes.Contains(got.Bytes, []byte(s)) || bytes.Contains(got.Bytes, []byte(ex.escape(s))) {
			t.Errorf("the client received the secret %q", s)
		}
	}
	if got.RPC != nil || !got.IsError {
		t.Errorf("want a tool result with isError")
		return nil
	}
	env := got.Envelope
	if env == nil {
		t.Errorf("the result has no mcperr envelope")
		return nil
	}
	if env.Code != code {
		t.Errorf("code %s, want %s", env.Code, code)
	}
	if want := filter.RenderForModel(*env); !slices.Equal(got.Texts, want) {
		t.Errorf("the model reads %q, want %q", got.Texts, want)
	}
	return env
}

// one returns the only record of recs.
func one(t *testing.T, recs []mcperrtest.Record) (mcperrtest.Record, bool) {
	t.Helper()
	if len(recs) != 1 {
		t.Errorf("%d records, want exactly one", len(recs))
		return mcperrtest.Record{}, false
	}
	return recs[0], true
}

func wantAttr(t *testing.T, r mcperrtest.Record, key string, want any) {
	t.Helper()
	if got, ok := r.Attrs[key]; !ok || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("record %s=%v, want %v", key, got, want)
	}
}

// recordHolds reports whether a text attribute or the message of r
// contains s.
func recordHolds(r mcperrtest.Record, s string) bool {
	if strings.Contains(r.Message, s) {
		return true
	}
	for _, v := range r.Attrs {
		if strings.Contains(fmt.Sprint(v), s) {
			return true
		}
	}
	return false
}

func records(recs []mcperrtest.Record) string {
	var b strings.Builder
	for _, r := range recs {
		b.WriteString("  " + r.String() + "\n")
	}
	return b.String()
}

// JSONString returns s as a JSON string, quotes included.
func JSONString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a string always marshals
	}
	return string(b)
}

// RPC returns the JSON of a JSON-RPC error as Answer.Bytes holds it.
func RPC(code int64, message string) string {
	b, err := json.Marshal(RPCError{Code: code, Message: message})
	if err != nil {
		panic(err) // an RPCError always marshals
	}
	return string(b)
}

// args returns args with the variables of its strings expanded.
func (e expand) args(args map[string]any) map[string]any {
	if args == nil {
		return nil
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		if s, ok := v.(string); ok {
			v = e.raw(s)
		}
		out[k] = v
	}
	return out
}

// expand replaces the ${name} variables of a table.
type expand struct {
	rawR, jsonR *strings.Replacer
}

func expander(vars map[string]string) expand {
	var raw, js []string
	for k, v := range vars {
		raw = append(raw, "${"+k+"}", v)
		js = append(js, "${"+k+"}", expand{}.escape(v))
	}
	return expand{rawR: strings.NewReplacer(raw...), jsonR: strings.NewReplacer(js...)}
}

// raw expands s with the variables as they are.
func (e expand) raw(s string) string { return e.rawR.Replace(s) }

// json expands s with the variables escaped for a JSON string.
func (e expand) json(s string) string { return e.jsonR.Replace(s) }

// escape returns s as it is written inside a JSON string.
func (expand) escape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
