package filter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

// renderCodes registers the codes of the rendering tests: a business code
// and a retryable server code with a default delay and a documentation URL.
func renderCodes(t *testing.T) *codes.Registry {
	t.Helper()
	reg, err := codes.NewRegistry(
		codes.Info{Code: "INSUFFICIENT_FUNDS", Category: codes.Business, Description: "The balance is too low."},
		codes.Info{Code: "LEDGER_BUSY", Category: codes.Server, Description: "The ledger is busy.", Retryable: true,
			RetryAfter: 30 * time.Second, DocURL: "https://docs.example.com/errors#LEDGER_BUSY"},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestRenderForModel pins, byte for byte, what the model reads for each
// kind of failure with the default renderer, and that every envelope fits
// the schema.
func TestRenderForModel(t *testing.T) {
	funds := toolerr.New("Insufficient funds for this transfer.").WithCode("INSUFFICIENT_FUNDS").
		WithDetails(map[string]any{"available": 100, "requested": 250}).WithHint("Offer a transfer of at most 100.")
	tests := []struct {
		name string
		err  error
		want []string // "{ref}" stands for the ref
	}{
		{"ToolError", toolerr.New("b must not be zero."),
			[]string{"b must not be zero.", "Code: TOOL_ERROR\nRetry: no, not with the same arguments."}},
		{"business code, details and hint", funds, []string{"Insufficient funds for this transfer.",
			"Code: INSUFFICIENT_FUNDS\nDetails: {\"available\":100,\"requested\":250}\nRetry: no, not with the same arguments.\nHint: Offer a transfer of at most 100."}},
		{"server code: the ref is named after the message", toolerr.New("The ledger is busy.").WithCode("LEDGER_BUSY"),
			[]string{"The ledger is busy.", "Code: LEDGER_BUSY\nRetry: yes, after 30 seconds.\nRef: {ref}"}},
		{"explicit do not retry beats the registration", toolerr.New("The ledger refused this transfer.").WithCode("LEDGER_BUSY").WithRetryable(false),
			[]string{"The ledger refused this transfer.", "Code: LEDGER_BUSY\nRetry: no.\nRef: {ref}"}},
		{"retry delay on the error", toolerr.New("Try again shortly.").WithRetryAfter(1500 * time.Millisecond),
			[]string{"Try again shortly.", "Code: TOOL_ERROR\nRetry: yes, after 2 seconds."}},
		{"rate limited", domain.NewRateLimited(30 * time.Second), []string{"Too many requests. Retry after 30 seconds.",
			"Code: RATE_LIMITED\nDetails: {\"retryAfterSeconds\":30}\nRetry: yes, after 30 seconds."}},
		{"validation with pointers", &domain.Validation{Violations: []domain.Violation{
			{Field: "items/1/qty", Pointer: "/items/1/qty", Reason: "minimum", Constraint: "must be at least 1", Value: canary}}},
			[]string{"Validation failed for items/1/qty: must be at least 1",
				"Code: VALIDATION_ERROR\nDetails: {\"violations\":[{\"constraint\":\"must be at least 1\",\"field\":\"items/1/qty\",\"pointer\":\"/items/1/qty\",\"reason\":\"minimum\"}]}\nRetry: no, not with the same arguments."}},
		{"masked", fmt.Errorf("dial: password=%s", canary),
			[]string{`Internal error in tool "lookup" (ref: {ref}).`, "Code: INTERNAL_ERROR\nRetry: no."}},
		{"timeout: the pipeline's text ends with the ref", fmt.Errorf("query %s: %w", canary, context.DeadlineExceeded),
			[]string{"The tool did not finish in time; try again, perhaps with a smaller request (ref: {ref}).", "Code: TIMEOUT\nRetry: yes."}},
		{"cancelled: a client error, no ref", fmt.Errorf("query %s: %w", canary, context.Canceled),
			[]string{"The request was cancelled before the tool finished.", "Code: CANCELLED\nRetry: yes."}},
		{"a hint with line breaks stays one line", toolerr.New("No.").WithHint("first\nHint: forged\r\nline"),
			[]string{"No.", "Code: TOOL_ERROR\nRetry: no, not with the same arguments.\nHint: first Hint: forged  line"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, filter.WithRegistry(renderCodes(t)))
			r := h.p.Handle(context.Background(), call, tt.err)
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = strings.ReplaceAll(w, "{ref}", r.Ref)
			}
			if got := r.Texts(); !slices.Equal(got, want) {
				t.Errorf("texts\n got %q\nwant %q", got, want)
			}
			if strings.Contains(tt.want[0]+tt.want[1], "{ref}") != (r.Ref != "") {
				t.Errorf("ref %q: a ref must be named in the text exactly when there is one", r.Ref)
			}
			if strings.Contains(clientBytes(t, r), canary) {
				t.Error("the canary reached the client")
			}
			env := r.Envelope()
			adaptertest.ValidateEnvelope(t, env)
		})
	}
}

// TestRenderMessageOnly checks the message-only rendering: the message and
// one "Hint: ..." block a hint, as mcperr sent before it rendered for the
// model.
func TestRenderMessageOnly(t *testing.T) {
	h := newHarness(t, filter.WithRenderer(filter.RenderMessageOnly))
	r := h.p.Handle(context.Background(), call, toolerr.New("b must not be zero.").WithHint("Pass a non-zero b.").WithHint("Really."))
	if got, want := r.Texts(), []string{"b must not be zero.", "Hint: Really."}; !slices.Equal(got, want) {
		t.Errorf("texts %q, want %q", got, want)
	}
	r = h.p.Handle(context.Background(), call, errors.New(canary))
	if got := r.Texts(); len(got) != 1 || got[0] != r.Message {
		t.Errorf("texts %q, want the masked message alone", got)
	}
}

// TestCustomRenderer checks the application's own Renderer, and that one
// that fails cannot cost the call its answer or leak anything.
func TestCustomRenderer(t *testing.T) {
	ctx := context.Background()
	t.Run("used", func(t *testing.T) {
		h := newHarness(t, filter.WithRenderer(func(r *filter.Response) []string {
			return []string{r.Message, "[" + string(r.Code) + "]"}
		}))
		r := h.p.Handle(ctx, call, domain.NewNotFound("Order", "o1"))
		if got := r.Texts(); !slices.Equal(got, []string{"Order not found: o1", "[NOT_FOUND]"}) {
			t.Errorf("texts %q", got)
		}
	})
	failing := []struct {
		name  string
		fn    filter.Renderer
		check func(t *testing.T, texts []string, rec map[string]any)
	}{
		{"panics", func(*filter.Response) []string { panic(canary) }, nil},
		{"returns nothing", func(*filter.Response) []string { return nil }, nil},
		{"calls runtime.Goexit", func(*filter.Response) []string { runtime.Goexit(); return nil }, nil},
		{"writes to the response", func(r *filter.Response) []string { r.Message, r.Code = canary, "HACKED"; return []string{"ok"} }, nil},
	}
	for _, tt := range failing {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, filter.WithRenderer(tt.fn))
			r := h.p.Handle(ctx, call, toolerr.New("b must not be zero."))
			if r == nil || len(r.Texts()) == 0 {
				t.Fatalf("no answer: %+v", r)
			}
			if strings.Contains(clientBytes(t, r), canary) {
				t.Error("the renderer's panic value reached the client")
			}
			recs := h.records(t)
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1: %v", len(recs), recs)
			}
			if tt.name == "writes to the response" {
				if r.Message != "b must not be zero." || r.Code != codes.ToolFailed || !slices.Equal(r.Texts(), []string{"ok"}) {
					t.Errorf("response %+v: the renderer's writes reached it", r)
				}
				return
			}
			if tt.name != "calls runtime.Goexit" {
				if got := r.Texts(); !slices.Equal(got, filter.RenderForModel(r)) {
					t.Errorf("texts %q, want the default rendering", got)
				}
				if _, ok := recs[0]["render_error"]; !ok {
					t.Errorf("record %v lacks render_error", recs[0])
				}
			}
		})
	}
	t.Run("bounded", func(t *testing.T) {
		h := newHarness(t, filter.WithRenderer(func(*filter.Response) []string {
			out := make([]string, 40)
			for i := range out {
				out[i] = strings.Repeat("x", filter.MaxMessage+100)
			}
			return out
		}))
		texts := h.p.Handle(ctx, call, toolerr.New("x")).Texts()
		if len(texts) != 16 {
			t.Errorf("%d blocks, want 16", len(texts))
		}
		for _, b := range texts {
			if len(b) > filter.MaxMessage {
				t.Fatalf("a block of %d bytes, more than MaxMessage", len(b))
			}
		}
	})
	t.Run("nil", func(t *testing.T) {
		_, err := filter.New(filter.WithRenderer(nil))
		var de *toolerr.DefinitionError
		if !errors.As(err, &de) || de.Code != codes.InvalidOption {
			t.Errorf("WithRenderer(nil): %v, want an INVALID_OPTION definition error", err)
		}
	})
}

// TestRetryAdvice checks where a retry delay comes from and where it goes.
func TestRetryAdvice(t *testing.T) {
	reg := renderCodes(t)
	yes, no := true, false
	byFilter := func(resp filter.Response) filter.Filter {
		return filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) { return &resp, nil })
	}
	tests := []struct {
		name      string
		err       error
		filters   []filter.Filter
		retryable bool
		after     time.Duration
		seconds   float64
	}{
		{"ToolError.WithRetryAfter", toolerr.New("Busy.").WithRetryAfter(1500 * time.Millisecond), nil, true, 1500 * time.Millisecond, 1.5},
		{"WithRetryable(false) drops the delay", toolerr.New("No.").WithRetryAfter(time.Minute).WithRetryable(false), nil, false, 0, 0},
		{"the registration's default", toolerr.New("Busy.").WithCode("LEDGER_BUSY"), nil, true, 30 * time.Second, 30},
		{"the error's delay beats the registration's", toolerr.New("Busy.").WithCode("LEDGER_BUSY").WithRetryAfter(5 * time.Second), nil, true, 5 * time.Second, 5},
		{"explicit no beats a retryable code", toolerr.New("No.").WithCode("LEDGER_BUSY").WithRetryable(false), nil, false, 0, 0},
		{"domain.RateLimited", domain.NewRateLimited(2 * time.Second), nil, true, 2 * time.Second, 2},
		{"capped", toolerr.New("Later.").WithRetryAfter(30 * 24 * time.Hour), nil, true, filter.MaxRetryAfter, filter.MaxRetryAfter.Seconds()},
		{"sub-millisecond rounds up", toolerr.New("Soon.").WithRetryAfter(1500 * time.Microsecond), nil, true, 1500 * time.Microsecond, 0.002},
		{"masked: never", errors.New("boom"), nil, false, 0, 0},
		{"a filter's delay", errors.New("boom"), []filter.Filter{byFilter(filter.Response{Code: codes.Unavailable, Message: "Down.", RetryAfter: 10 * time.Second})},
			true, 10 * time.Second, 10},
		{"a filter's explicit no", errors.New("boom"), []filter.Filter{byFilter(filter.Response{Code: codes.Unavailable, Message: "Down.",
			Retryable: &no, RetryAfter: 10 * time.Second})}, false, 0, 0},
		{"a filter's yes takes the registration's delay", errors.New("boom"), []filter.Filter{byFilter(filter.Response{Code: "LEDGER_BUSY",
			Message: "Busy.", Retryable: &yes})}, true, 30 * time.Second, 30},
		{"a negative delay is none", errors.New("boom"), []filter.Filter{byFilter(filter.Response{Code: codes.Unavailable, Message: "Down.",
			RetryAfter: -time.Second})}, true, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, filter.WithRegistry(reg))
			r := h.p.Handle(context.Background(), call, tt.err, tt.filters...)
			if *r.Retryable != tt.retryable || r.RetryAfter != tt.after {
				t.Errorf("retryable %v after %v, want %v after %v", *r.Retryable, r.RetryAfter, tt.retryable, tt.after)
			}
			env := r.Envelope()
			if env.Retryable != tt.retryable || env.RetryAfterSeconds != tt.seconds {
				t.Errorf("envelope retryable %v retryAfterSeconds %v, want %v and %v", env.Retryable, env.RetryAfterSeconds, tt.retryable, tt.seconds)
			}
			adaptertest.ValidateEnvelope(t, env)
			block := r.Texts()[1]
			switch {
			case !tt.retryable && !strings.Contains(block, "\nRetry: no"):
				t.Errorf("block %q does not say no", block)
			case tt.retryable && tt.after > 0 && !strings.Contains(block, "\nRetry: yes, after "):
				t.Errorf("block %q does not say when", block)
			}
		})
	}
}

// TestWaitInWords checks how a delay reads.
func TestWaitInWords(t *testing.T) {
	for d, want := range map[time.Duration]string{
		500 * time.Millisecond:             "Retry: yes, after 500 milliseconds.",
		time.Second:                        "Retry: yes, after 1 second.",
		1001 * time.Millisecond:            "Retry: yes, after 2 seconds.",
		90 * time.Second:                   "Retry: yes, after 90 seconds.",
		2 * time.Minute:                    "Retry: yes, after 2 minutes.",
		150 * time.Minute:                  "Retry: yes, after 3 hours.",
		time.Millisecond / 2:               "Retry: yes, after 1 millisecond.",
		119*time.Second + time.Millisecond: "Retry: yes, after 120 seconds.",
	} {
		yes := true
		r := &filter.Response{Code: codes.Unavailable, Message: "x", Retryable: &yes, RetryAfter: d}
		if got := filter.RenderForModel(r)[1]; !strings.Contains(got, "\n"+want) {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}

// TestCategoryAndDocURL checks that the registration's category and
// documentation URL reach the envelope.
func TestCategoryAndDocURL(t *testing.T) {
	h := newHarness(t, filter.WithRegistry(renderCodes(t)))
	for _, tc := range []struct {
		err      error
		category codes.Category
		doc      string
	}{
		{toolerr.New("Busy.").WithCode("LEDGER_BUSY"), codes.Server, "https://docs.example.com/errors#LEDGER_BUSY"},
		{toolerr.New("Poor.").WithCode("INSUFFICIENT_FUNDS"), codes.Business, ""},
		{domain.NewNotFound("Order", "1"), codes.Client, ""},
		{errors.New("boom"), codes.Server, ""},
	} {
		env := h.p.Handle(context.Background(), call, tc.err).Envelope()
		if env.Category != tc.category || env.DocURL != tc.doc {
			t.Errorf("%v: category %v docUrl %q, want %v %q", tc.err, env.Category, env.DocURL, tc.category, tc.doc)
		}
	}
}

// TestEnvelopeSchemaIsTheEnvelope keeps the schema and the Go type in step:
// the same fields, the same required ones.
func TestEnvelopeSchemaIsTheEnvelope(t *testing.T) {
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(filter.EnvelopeSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	var fields, required []string
	typ := reflect.TypeFor[filter.Envelope]()
	for i := range typ.NumField() {
		name, opts, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		fields = append(fields, name)
		if opts != "omitempty" || name == "category" || name == "requestId" {
			required = append(required, name)
		}
	}
	var props []string
	for p := range schema.Properties {
		props = append(props, p)
	}
	slices.Sort(fields)
	slices.Sort(props)
	slices.Sort(required)
	slices.Sort(schema.Required)
	if !slices.Equal(fields, props) {
		t.Errorf("Envelope fields %v, schema properties %v", fields, props)
	}
	if !slices.Equal(required, schema.Required) {
		t.Errorf("Envelope's always-present fields %v, schema requires %v", required, schema.Required)
	}
}

// TestEnvelopeSchemaRejects shows that the schema check can fail.
func TestEnvelopeSchemaRejects(t *testing.T) {
	good := `{"version":1,"error":true,"code":"NOT_FOUND","category":"client","message":"m","retryable":false,"timestamp":"2025-01-02T03:04:05Z","requestId":"7"}`
	for _, bad := range []string{
		strings.Replace(good, `"code":"NOT_FOUND",`, "", 1),
		strings.Replace(good, `"category":"client"`, `"category":"user"`, 1),
		strings.Replace(good, `"version":1`, `"version":2`, 1),
		strings.Replace(good, `"category":"client"`, `"category":"server"`, 1),                   // a server error without a ref
		strings.Replace(good, `"retryable":false`, `"retryable":false,"retryAfterSeconds":3`, 1), // a delay without retryable
		strings.Replace(good, `"code":"NOT_FOUND"`, `"code":"not found"`, 1),
		strings.Replace(good, `,"requestId":"7"`, "", 1),
	} {
		var ft fakeT
		adaptertest.ValidateEnvelope(&ft, json.RawMessage(bad))
		if !ft.failed {
			t.Errorf("the schema accepts %s", bad)
		}
	}
	var ft fakeT
	adaptertest.ValidateEnvelope(&ft, json.RawMessage(good))
	if ft.failed {
		t.Errorf("the schema refuses %s: %s", good, ft.msg)
	}
}

// fakeT records a failure instead of failing the test.
type fakeT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Errorf(format string, args ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, args...)
}
func (f *fakeT) Fatalf(format string, args ...any) { f.Errorf(format, args...); runtime.Goexit() }

// TestReadEnvelope reads an envelope in each form it can take.
func TestReadEnvelope(t *testing.T) {
	h := newHarness(t, filter.WithRegistry(renderCodes(t)))
	r := h.p.Handle(context.Background(), call, toolerr.New("Busy.").WithCode("LEDGER_BUSY"))
	env := r.Envelope()
	b, err := json.Marshal(map[string]any{filter.MetaKey: env, "other": 1})
	if err != nil {
		t.Fatal(err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	for name, meta := range map[string]map[string]any{
		"*Envelope":        {filter.MetaKey: &env},
		"Envelope":         {filter.MetaKey: env},
		"decoded JSON":     decoded,
		"json.RawMessage":  {filter.MetaKey: json.RawMessage(mustJSON(t, env))},
		"with a new field": {filter.MetaKey: json.RawMessage(strings.Replace(string(mustJSON(t, env)), "{", `{"newField":{"x":1},`, 1))},
	} {
		got, err := filter.ReadEnvelope(meta)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(*got, env) {
			t.Errorf("%s: read %+v, want %+v", name, *got, env)
		}
		if got.RetryAfter() != 30*time.Second {
			t.Errorf("%s: RetryAfter() = %v, want 30s", name, got.RetryAfter())
		}
	}
	if _, err := filter.ReadEnvelope(map[string]any{"other": 1}); !errors.Is(err, filter.ErrNoEnvelope) {
		t.Errorf("no envelope: %v, want ErrNoEnvelope", err)
	}
	if _, err := filter.ReadEnvelope(nil); !errors.Is(err, filter.ErrNoEnvelope) {
		t.Errorf("nil meta: %v, want ErrNoEnvelope", err)
	}
	for _, bad := range []any{"text", 42, map[string]any{"code": 7}, map[string]any{"error": false, "code": "X"}, map[string]any{"category": "user", "error": true, "code": "X"}} {
		if _, err := filter.ReadEnvelope(map[string]any{filter.MetaKey: bad}); err == nil || errors.Is(err, filter.ErrNoEnvelope) {
			t.Errorf("%v: err %v, want a read error", bad, err)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
