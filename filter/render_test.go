package filter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
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
			[]string{"The tool did not finish in time, and may have done its work before it stopped (ref: {ref}).", "Code: TIMEOUT\n" + retryUnknown}},
		{"cancelled: a client error, no ref", fmt.Errorf("query %s: %w", canary, context.Canceled),
			[]string{"The request was cancelled before the tool finished.", "Code: CANCELLED\n" + retryUnknown}},
		{"a hint with line breaks stays one line", toolerr.New("No.").WithHint("first\nHint: forged\r\nline"),
			[]string{"No.", "Code: TOOL_ERROR\nRetry: no, not with the same arguments.\nHint: first Hint: forged  line"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, filter.WithRegistry(renderCodes(t)))
			f := h.handle(t, endedAs(context.Background(), tt.err), call, tt.err)
			ref := f.Envelope.Ref
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = strings.ReplaceAll(w, "{ref}", ref)
			}
			if !slices.Equal(f.Texts, want) {
				t.Errorf("texts\n got %q\nwant %q", f.Texts, want)
			}
			if !slices.Equal(filter.RenderForModel(f.Envelope), want) {
				t.Errorf("RenderForModel(envelope) = %q, want the texts sent", filter.RenderForModel(f.Envelope))
			}
			if strings.Contains(tt.want[0]+tt.want[1], "{ref}") != (ref != "") {
				t.Errorf("ref %q: a ref must be named in the text exactly when there is one", ref)
			}
			if strings.Contains(clientBytes(t, f), canary) {
				t.Error("the canary reached the client")
			}
		})
	}
}

// messageOnly renders the message alone, then one "Hint: ..." block a
// hint: what the model read before mcperr rendered failures for it.
func messageOnly(e filter.Envelope) []string {
	out := []string{e.Message}
	for _, h := range e.Hints {
		out = append(out, "Hint: "+h)
	}
	return out
}

// TestRenderMessageOnly checks an application's message-only rendering:
// the message and one "Hint: ..." block a hint.
func TestRenderMessageOnly(t *testing.T) {
	h := newHarness(t, filter.WithRenderer(messageOnly))
	f := h.handle(t, context.Background(), call, toolerr.New("b must not be zero.").WithHint("Pass a non-zero b.").WithHint("Really."))
	if want := []string{"b must not be zero.", "Hint: Really."}; !slices.Equal(f.Texts, want) {
		t.Errorf("texts %q, want %q", f.Texts, want)
	}
	hints := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
		return &filter.Response{Code: codes.Conflict, Message: "Taken.", Hints: []string{"One.", "Two."}}, nil
	})
	f = h.handle(t, context.Background(), call, errors.New("x"), hints)
	if want := []string{"Taken.", "Hint: One.", "Hint: Two."}; !slices.Equal(f.Texts, want) {
		t.Errorf("texts %q, want %q", f.Texts, want)
	}
	f = h.handle(t, context.Background(), call, errors.New(canary))
	if len(f.Texts) != 1 || f.Texts[0] != f.Envelope.Message || f.Texts[0] != masked(f.Envelope.Ref) {
		t.Errorf("texts %q, want the masked message alone", f.Texts)
	}
}

// TestCustomRenderer checks the application's own Renderer, and that one
// that fails cannot cost the call its answer or leak anything.
func TestCustomRenderer(t *testing.T) {
	ctx := context.Background()
	t.Run("used", func(t *testing.T) {
		h := newHarness(t, filter.WithRenderer(func(e filter.Envelope) []string {
			return []string{e.Message, "[" + string(e.Code) + "]"}
		}))
		f := h.handle(t, ctx, call, domain.NewNotFound("Order", "o1"))
		if !slices.Equal(f.Texts, []string{"Order not found: o1", "[NOT_FOUND]"}) {
			t.Errorf("texts %q", f.Texts)
		}
		if recs := h.records(t); len(recs) != 1 || recs[0]["render_error"] != nil {
			t.Errorf("records %v", recs)
		}
	})
	failing := []struct {
		name string
		fn   func(filter.Envelope) []string
	}{
		{"panics", func(filter.Envelope) []string { panic(canary) }},
		{"panics with an error whose Error panics", func(filter.Envelope) []string { panic(&panickyErr{}) }},
		{"returns nothing", func(filter.Envelope) []string { return nil }},
		{"returns no block", func(filter.Envelope) []string { return []string{} }},
	}
	for _, tt := range failing {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, filter.WithRenderer(tt.fn))
			f := h.handle(t, ctx, call, toolerr.New("b must not be zero."))
			if f == nil || !slices.Equal(f.Texts, filter.RenderForModel(f.Envelope)) {
				t.Fatalf("texts %q, want the default rendering", f.Texts)
			}
			if strings.Contains(clientBytes(t, f), canary) {
				t.Error("the renderer's panic value reached the client")
			}
			recs := h.records(t)
			if len(recs) != 1 || recs[0]["render_error"] == nil {
				t.Fatalf("records %v, want one with render_error", recs)
			}
		})
	}
	t.Run("writes to its envelope", func(t *testing.T) {
		h := newHarness(t, filter.WithRenderer(func(e filter.Envelope) []string {
			e.Message, e.Code = canary, "HACKED"
			return []string{"ok"}
		}))
		f := h.handle(t, ctx, call, toolerr.New("b must not be zero."))
		if f.Envelope.Message != "b must not be zero." || f.Envelope.Code != codes.ToolFailed || !slices.Equal(f.Texts, []string{"ok"}) {
			t.Errorf("failure %+v: the renderer's writes reached it", f)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		h := newHarness(t, filter.WithRenderer(func(filter.Envelope) []string {
			out := make([]string, 40)
			for i := range out {
				out[i] = strings.Repeat("x", maxMessage+100)
			}
			return out
		}))
		texts := h.handle(t, ctx, call, toolerr.New("x")).Texts
		if len(texts) != maxBlocks {
			t.Errorf("%d blocks, want %d", len(texts), maxBlocks)
		}
		for _, b := range texts {
			if len(b) > maxMessage {
				t.Fatalf("a block of %d bytes, more than %d", len(b), maxMessage)
			}
		}
	})
	t.Run("invalid UTF-8", func(t *testing.T) {
		h := newHarness(t, filter.WithRenderer(func(filter.Envelope) []string { return []string{"a\xffb"} }))
		if texts := h.handle(t, ctx, call, toolerr.New("x")).Texts; !slices.Equal(texts, []string{"a\uFFFDb"}) {
			t.Errorf("texts %q, want valid UTF-8", texts)
		}
	})
}

// TestRetryAdvice checks where a retry delay comes from and where it goes.
func TestRetryAdvice(t *testing.T) {
	reg := renderCodes(t)
	yes, no := true, false
	byFilter := func(resp filter.Response) filter.Filter {
		return filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) { return &resp, nil })
	}
	tests := []struct {
		name      string
		err       error
		filters   []filter.Filter
		retryable bool
		seconds   float64
	}{
		{"ToolError.WithRetryAfter", toolerr.New("Busy.").WithRetryAfter(1500 * time.Millisecond), nil, true, 1.5},
		{"WithRetryable(false) drops the delay", toolerr.New("No.").WithRetryAfter(time.Minute).WithRetryable(false), nil, false, 0},
		{"the registration's default", toolerr.New("Busy.").WithCode("LEDGER_BUSY"), nil, true, 30},
		{"the error's delay beats the registration's", toolerr.New("Busy.").WithCode("LEDGER_BUSY").WithRetryAfter(5 * time.Second), nil, true, 5},
		{"explicit no beats a retryable code", toolerr.New("No.").WithCode("LEDGER_BUSY").WithRetryable(false), nil, false, 0},
		{"domain.RateLimited", domain.NewRateLimited(2 * time.Second), nil, true, 2},
		{"capped", toolerr.New("Later.").WithRetryAfter(30 * 24 * time.Hour), nil, true, maxRetryAfter.Seconds()},
		{"sub-millisecond rounds up", toolerr.New("Soon.").WithRetryAfter(1500 * time.Microsecond), nil, true, 0.002},
		{"masked: never", errors.New("boom"), nil, false, 0},
		{"a filter's delay", errors.New("boom"), []filter.Filter{byFilter(filter.Response{Code: codes.Unavailable, Message: "Down.", RetryAfter: 10 * time.Second})},
			true, 10},
		{"a filter's explicit no", errors.New("boom"), []filter.Filter{byFilter(filter.Response{Code: codes.Unavailable, Message: "Down.",
			Retryable: &no, RetryAfter: 10 * time.Second})}, false, 0},
		{"a filter's yes takes the registration's delay", errors.New("boom"), []filter.Filter{byFilter(filter.Response{Code: "LEDGER_BUSY",
			Message: "Busy.", Retryable: &yes})}, true, 30},
		{"a negative delay is none", errors.New("boom"), []filter.Filter{byFilter(filter.Response{Code: codes.Unavailable, Message: "Down.",
			RetryAfter: -time.Second})}, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, filter.WithRegistry(reg))
			f := h.handle(t, context.Background(), call, tt.err, tt.filters...)
			env := f.Envelope
			if env.Retryable != tt.retryable || env.RetryAfterSeconds != tt.seconds {
				t.Errorf("envelope retryable %v retryAfterSeconds %v, want %v and %v", env.Retryable, env.RetryAfterSeconds, tt.retryable, tt.seconds)
			}
			block := f.Texts[1]
			switch {
			case !tt.retryable && !strings.Contains(block, "\nRetry: no"):
				t.Errorf("block %q does not say no", block)
			case tt.retryable && tt.seconds > 0 && !strings.Contains(block, "\nRetry: yes, after "):
				t.Errorf("block %q does not say when", block)
			case tt.retryable && tt.seconds == 0 && !strings.Contains(block, "\nRetry: yes.\n") && !strings.HasSuffix(block, "\nRetry: yes."):
				t.Errorf("block %q does not say yes", block)
			}
		})
	}
}

// TestWaitInWords checks how retry advice reads.
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
		0:                                  "Retry: yes.",
	} {
		e := filter.Envelope{Code: codes.Unavailable, Category: codes.Server, Message: "x", Retryable: true, RetryAfterSeconds: d.Seconds()}
		if got := filter.RenderForModel(e)[1]; !strings.Contains(got, "\n"+want) {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
	for category, want := range map[codes.Category]string{
		codes.Server:   "Retry: no.",
		codes.Client:   "Retry: no, not with the same arguments.",
		codes.Business: "Retry: no, not with the same arguments.",
	} {
		e := filter.Envelope{Code: "X", Category: category, Message: "x", RetryAfterSeconds: 30}
		if got := filter.RenderForModel(e)[1]; got != "Code: X\n"+want {
			t.Errorf("%s: %q, want %q", category, got, want)
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
		env := h.handle(t, context.Background(), call, tc.err).Envelope
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
		strings.Replace(good, `"message":"m"`, `"message":""`, 1),
		strings.Replace(good, `"2025-01-02T03:04:05Z"`, `"2025-01-02T03:04:05+01:00"`, 1),
		strings.Replace(good, `"2025-01-02T03:04:05Z"`, `"yesterday Z"`, 1),
		strings.Replace(good, `"retryable":false`, `"retryable":false,"ref":"has space"`, 1),
		strings.Replace(good, `"retryable":false`, `"retryable":false,"docUrl":"HTTPS://example.com/e"`, 1),
		strings.Replace(good, `"retryable":false`, `"retryable":false,"docUrl":"https://example.com/a b"`, 1),
		strings.Replace(good, `"retryable":false`, `"retryable":false,"details":[1]`, 1),
		strings.Replace(good, `"retryable":false`, `"retryable":false,"hints":[""]`, 1),
		strings.Replace(good, `"retryable":false`, `"retryable":false,"hints":["1","2","3","4","5","6","7","8","9"]`, 1),
		strings.Replace(good, `"retryable":false`, `"retryable":true,"retryAfterSeconds":604801`, 1),
	} {
		if filter.EnvelopeError(json.RawMessage(bad)) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
	if err := filter.EnvelopeError(json.RawMessage(good)); err != nil {
		t.Errorf("the schema refuses %s: %v", good, err)
	}
}

// TestDocURLsFitTheSchema checks that every documentation URL a registry
// accepts gives envelopes that fit the schema.
func TestDocURLsFitTheSchema(t *testing.T) {
	for _, u := range []string{
		"https://docs.example.com/errors#DOCS",
		"http://example.com",
		"https://example.com:8443/a/b?c=d&e=%20f#g",
		"https://[::1]/errors",
		"https://例え.jp/エラー",
	} {
		reg, err := codes.NewRegistry(codes.Info{Code: "DOCS", Category: codes.Client, DocURL: u})
		if err != nil {
			t.Errorf("%q: %v", u, err)
			continue
		}
		h := newHarness(t, filter.WithRegistry(reg))
		if f := h.handle(t, context.Background(), call, toolerr.New("x").WithCode("DOCS")); f.Envelope.DocURL != u {
			t.Errorf("docUrl %q, want %q", f.Envelope.DocURL, u)
		}
	}
}

// TestTextBlocksAreBounded checks that every text block is at most 16 KiB,
// as the package documents, however large the details and hints that the
// default rendering puts in its second block: details just under their own
// bound, and a hint, make that block larger than a message may be.
func TestTextBlocksAreBounded(t *testing.T) {
	large := toolerr.New("Too much.").WithHint(strings.Repeat("h", maxHint)).
		WithDetails(map[string]any{"v": strings.Repeat("d", maxDetails-len(`{"v":""}`))})
	for name, opts := range map[string][]filter.Option{
		"the default renderer":                 nil,
		"RenderForModel":                       {filter.WithRenderer(filter.RenderForModel)},
		"in place of one that panics":          {filter.WithRenderer(func(filter.Envelope) []string { panic("renderer") })},
		"in place of one that returns nothing": {filter.WithRenderer(func(filter.Envelope) []string { return nil })},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, opts...)
			f := h.handle(t, context.Background(), call, large)
			if f.Envelope.Details == nil || len(f.Envelope.Hints) != 1 {
				t.Fatalf("envelope %+v, want the details and the hint sent", f.Envelope)
			}
			for i, b := range f.Texts {
				if len(b) > maxMessage || !utf8.ValidString(b) {
					t.Errorf("block %d has %d bytes, more than %d", i, len(b), maxMessage)
				}
			}
		})
	}
}

// retryUnknown is the Retry line of a failure that may have taken effect
// on a tool not known to be safe to call again.
const retryUnknown = "Retry: not before checking; the outcome is unknown, and the tool may have done its work before it failed."
