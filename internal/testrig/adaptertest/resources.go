package adaptertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// Resource is a resource, or a resource template, the adapters register.
type Resource struct {
	// URI is the resource's URI, or the template's URI template.
	URI      string
	Template bool
	// Do reads the resource at uri: the text of its contents, or an error;
	// it may panic.
	Do func(ctx context.Context, uri string) (string, error)
}

// Prompt is a prompt the adapters register. Do returns the text of its one
// message, or an error; it may panic.
type Prompt struct {
	Name string
	// Arguments are the names of the prompt's arguments.
	Arguments []string
	Do        func(ctx context.Context, args map[string]string) (string, error)
}

// Resources returns the resources and templates of the table.
func Resources() []Resource {
	fail := func(err error) func(context.Context, string) (string, error) {
		return func(context.Context, string) (string, error) { return "", err }
	}
	return []Resource{
		{URI: "file:///ok.txt", Do: func(context.Context, string) (string, error) { return "hello", nil }},
		{URI: "file:///internal.txt", Do: fail(fmt.Errorf("dial 10.0.0.12:5432: password=%s refused", Canary))},
		{URI: "file:///panic.txt", Do: func(context.Context, string) (string, error) { panic("nil map write near " + Canary) }},
		{URI: "file:///missing.txt", Do: fail(fmt.Errorf("stat %s: %w", Canary, domain.NewNotFound("File", "missing.txt")))},
		{URI: "file:///forbidden.txt", Do: fail(domain.NewAuthorization("files:read:"+Canary, "user-"+Canary))},
		{URI: "file:///locked.txt", Do: fail(toolerr.New("The file is locked; try again in a minute.").WithCause(errors.New("flock: " + Canary)))},
		{URI: "file:///slow.txt", Do: fail(fmt.Errorf("read %s: %w", Canary, context.DeadlineExceeded))},
		{URI: "orders://{id}", Template: true, Do: func(_ context.Context, uri string) (string, error) {
			switch id := strings.TrimPrefix(uri, "orders://"); id {
			case "ord_404":
				return "", domain.NewNotFound("Order", id)
			case "ord_panic":
				panic("order cache corrupted near " + Canary)
			default:
				return "order " + id, nil
			}
		}},
	}
}

// Prompts returns the prompts of the table.
func Prompts() []Prompt {
	fail := func(err error) func(context.Context, map[string]string) (string, error) {
		return func(context.Context, map[string]string) (string, error) { return "", err }
	}
	return []Prompt{
		{Name: "greet", Arguments: []string{"name"}, Do: func(_ context.Context, args map[string]string) (string, error) {
			return "Hello, " + args["name"] + "!", nil
		}},
		{Name: "prompt_internal", Do: fail(fmt.Errorf("template store: token=%s rejected", Canary))},
		{Name: "prompt_panic", Do: func(context.Context, map[string]string) (string, error) { panic("index out of range near " + Canary) }},
		{Name: "prompt_validation", Do: fail(domain.NewValidation("topic", Canary, "Must be at most 20 characters"))},
		{Name: "prompt_not_found", Do: fail(fmt.Errorf("load: %w", domain.NewNotFound("Order", "ord_404")))},
		{Name: "prompt_business", Do: fail(domain.NewBusinessRule("ORDER_ALREADY_DELIVERED",
			"Cannot summarize a delivered order", map[string]any{"orderId": "ord_1"}))},
	}
}

// Complete is the table's completion of the argument "name" of the prompt
// "greet": "fail" fails with a secret, "panic" panics, anything else
// completes to "Ada".
func Complete(_ context.Context, value string) ([]string, error) {
	switch value {
	case "fail":
		return nil, fmt.Errorf("suggest index: secret=%s", Canary)
	case "panic":
		panic("completion cache near " + Canary)
	}
	return []string{"Ada"}, nil
}

// RPCExpect is what a client must receive for an RPCCase.
type RPCExpect struct {
	// Text is the text a success carries: the resource's contents, the
	// prompt's message, or the first completion value.
	Text string
	// Code is the JSON-RPC error code; 0 for a success. CodeResourceNotFound
	// stands for the code of a resource not found on the negotiated
	// protocol: see NotFoundCode.
	Code int64
	// Message is the error's message exactly; "{ref}" stands for the ref.
	Message string
	// EnvCode is the code of the envelope in the error's data.
	EnvCode codes.Code
	// URI means the data must name the resource read.
	URI bool
	// Masked means a ref in the message and in exactly one ERROR record.
	Masked bool
	// Server means a server error that is not masked: a ref in the message
	// and data and in exactly one ERROR record.
	Server bool
	// Logged is the number of records the request must write.
	Logged int
	// LogContains are strings the record must hold.
	LogContains []string
	// PassThrough means a protocol error the SDK sends itself: it must
	// carry no envelope and write no record.
	PassThrough bool
}

// Kind is the kind of request of an RPCCase: its MCP method.
type Kind string

// The kinds of RPCCase.
const (
	KindResource   Kind = "resources/read"
	KindPrompt     Kind = "prompts/get"
	KindCompletion Kind = "completion/complete"
)

// Method returns the MCP method of k, as filter.Call.Method holds it.
func (k Kind) Method() string { return string(k) }

// RPCCase is one resources/read, prompts/get or completion/complete.
type RPCCase struct {
	Name string
	Kind Kind
	// Target is the URI read, the prompt got, or the prompt whose argument
	// "name" is completed.
	Target string
	// Args are the prompt's arguments; for a completion, Args["name"] is
	// the value completed.
	Args map[string]string
	Want RPCExpect
}

// RPCCases returns the table of resource, prompt and completion requests.
func RPCCases() []RPCCase {
	internal := func(what string) RPCExpect {
		return RPCExpect{Code: CodeInternalError, EnvCode: codes.InternalError, Masked: true, Logged: 1,
			Message: "Internal error in " + what + " (ref: {ref})."}
	}
	r, p, c := KindResource, KindPrompt, KindCompletion
	withLog := func(e RPCExpect, s ...string) RPCExpect { e.LogContains = s; return e }
	return []RPCCase{
		{"resource: success", r, "file:///ok.txt", nil, RPCExpect{Text: "hello"}},
		{"resource: plain error with a secret", r, "file:///internal.txt", nil,
			withLog(internal(`resource "file:///internal.txt"`), "password="+Canary)},
		{"resource: panic", r, "file:///panic.txt", nil, withLog(internal(`resource "file:///panic.txt"`), Canary, "goroutine")},
		{"resource: server survives a panic", r, "file:///ok.txt", nil, RPCExpect{Text: "hello"}},
		{"resource: NotFound", r, "file:///missing.txt", nil, RPCExpect{Code: CodeResourceNotFound, EnvCode: codes.NotFound,
			Message: "File not found: missing.txt", URI: true, Logged: 1, LogContains: []string{"stat " + Canary}}},
		{"resource: Authorization", r, "file:///forbidden.txt", nil, RPCExpect{Code: CodeInvalidParams, EnvCode: codes.Forbidden,
			Message: "Access denied.", Logged: 1, LogContains: []string{"user-" + Canary}}},
		// The tool's words over a cause nothing classifies: a server failure.
		{"resource: ToolError", r, "file:///locked.txt", nil, RPCExpect{Code: CodeInternalError, EnvCode: codes.ToolFailed,
			Message: "The file is locked; try again in a minute.", Server: true, Logged: 1, LogContains: []string{"flock: " + Canary}}},
		{"resource: a sub-operation past its deadline", r, "file:///slow.txt", nil,
			withLog(internal(`resource "file:///slow.txt"`), "context deadline exceeded")},
		{"template: success", r, "orders://ord_1", nil, RPCExpect{Text: "order ord_1"}},
		{"template: NotFound", r, "orders://ord_404", nil, RPCExpect{Code: CodeResourceNotFound, EnvCode: codes.NotFound,
			Message: "Order not found: ord_404", URI: true, Logged: 1}},
		{"template: panic", r, "orders://ord_panic", nil, withLog(internal(`resource "orders://ord_panic"`), Canary)},
		{"resource: unknown", r, "file:///no-such-file.txt", nil, RPCExpect{PassThrough: true}},
		{"prompt: success", p, "greet", map[string]string{"name": "Ada"}, RPCExpect{Text: "Hello, Ada!"}},
		{"prompt: plain error with a secret", p, "prompt_internal", nil, withLog(internal(`prompt "prompt_internal"`), "token="+Canary)},
		{"prompt: panic", p, "prompt_panic", nil, withLog(internal(`prompt "prompt_panic"`), Canary, "goroutine")},
		{"prompt: server survives a panic", p, "greet", map[string]string{"name": "Bo"}, RPCExpect{Text: "Hello, Bo!"}},
		{"prompt: Validation", p, "prompt_validation", nil, RPCExpect{Code: CodeInvalidParams, EnvCode: codes.ValidationError,
			Message: "Validation failed for topic: Must be at most 20 characters", Logged: 1, LogContains: []string{Canary}}},
		{"prompt: NotFound", p, "prompt_not_found", nil, RPCExpect{Code: CodeInvalidParams, EnvCode: codes.NotFound,
			Message: "Order not found: ord_404", Logged: 1}},
		{"prompt: BusinessRule", p, "prompt_business", nil, RPCExpect{Code: CodeInvalidParams, EnvCode: "ORDER_ALREADY_DELIVERED",
			Message: "Cannot summarize a delivered order", Logged: 1}},
		{"prompt: unknown", p, "no_such_prompt", nil, RPCExpect{PassThrough: true}},
		{"completion: success", c, "greet", map[string]string{"name": "A"}, RPCExpect{Text: "Ada"}},
		{"completion: plain error with a secret", c, "greet", map[string]string{"name": "fail"},
			withLog(internal(`completion for prompt "greet"`), "secret="+Canary)},
		{"completion: panic", c, "greet", map[string]string{"name": "panic"}, withLog(internal(`completion for prompt "greet"`), Canary)},
		{"completion: server survives a panic", c, "greet", map[string]string{"name": "A"}, RPCExpect{Text: "Ada"}},
	}
}

// NotFoundCode returns the JSON-RPC code of a resource not found on the
// protocol version proto: -32002 up to 2025-11-25, -32602 from 2026-07-28.
func NotFoundCode(proto string) int64 {
	if proto != "" && proto < "2026-07-28" {
		return CodeResourceNotFound
	}
	return CodeInvalidParams
}

// WireError is a JSON-RPC error as a client received it.
type WireError struct {
	Code    int64
	Message string
	Data    json.RawMessage
}

// RPCResult is what a client received for an RPCCase, in SDK-neutral form.
type RPCResult struct {
	// Err is the JSON-RPC error, if the request failed.
	Err *WireError
	// Text is the text of a success: see RPCExpect.Text.
	Text string
	// Raw is everything the client received, JSON-encoded: the canary must
	// not appear in it.
	Raw []byte
}

// CheckRPC asserts that r, received on protocol proto, and the records
// logged for the request are what c wants.
func CheckRPC(t *testing.T, c RPCCase, proto string, r RPCResult, records []map[string]any) {
	t.Helper()
	checkRPC(t, c, proto, r, records, true)
}

// CheckRPCWithoutData is CheckRPC for an SDK that sends every error of a
// resource, prompt or completion handler as -32603 without data, as mcp-go
// does: the message, the ref and the log must be what c wants; the code
// must be -32603 and the data absent.
func CheckRPCWithoutData(t *testing.T, c RPCCase, proto string, r RPCResult, records []map[string]any) {
	t.Helper()
	checkRPC(t, c, proto, r, records, false)
}

func checkRPC(t *testing.T, c RPCCase, proto string, r RPCResult, records []map[string]any, withData bool) {
	t.Helper()
	w := c.Want
	if bytes.Contains(r.Raw, []byte(Canary)) {
		t.Errorf("the canary secret reached the client: %s", r.Raw)
	}
	if r.Err != nil && (strings.Contains(r.Err.Message, Canary) || bytes.Contains(r.Err.Data, []byte(Canary))) {
		t.Errorf("the canary secret reached the client in a JSON-RPC error: %+v", r.Err)
	}
	if w.PassThrough {
		if r.Err == nil {
			t.Fatalf("want the SDK's own protocol error, got %s", r.Raw)
		}
		if bytes.Contains(r.Err.Data, []byte(filter.MetaKey)) || bytes.Contains(r.Err.Data, []byte(`"timestamp"`)) {
			t.Errorf("the SDK's own protocol error carries an envelope: %s", r.Err.Data)
		}
		if len(records) != 0 {
			t.Errorf("the SDK's own protocol error wrote %d records: %v", len(records), records)
		}
		return
	}
	if w.Code == 0 {
		if r.Err != nil {
			t.Fatalf("want success %q, got JSON-RPC error %d %q", w.Text, r.Err.Code, r.Err.Message)
		}
		if r.Text != w.Text {
			t.Errorf("text = %q, want %q", r.Text, w.Text)
		}
		if len(records) != 0 {
			t.Errorf("a success wrote records: %v", records)
		}
		return
	}
	if r.Err == nil {
		t.Fatalf("want JSON-RPC error %d, got %s", w.Code, r.Raw)
	}
	want := w.Code
	switch {
	case !withData:
		want = CodeInternalError
	case want == CodeResourceNotFound:
		want = NotFoundCode(proto)
	}
	if r.Err.Code != want {
		t.Errorf("code = %d, want %d (protocol %q)", r.Err.Code, want, proto)
	}
	ref := ""
	if m := refPattern.FindStringSubmatch(r.Err.Message); m != nil {
		ref = m[1]
	}
	wantMsg := strings.ReplaceAll(w.Message, "{ref}", ref)
	if r.Err.Message != wantMsg {
		t.Errorf("message = %q, want %q", r.Err.Message, wantMsg)
	}
	if len(records) == 1 {
		if id, _ := records[0]["request_id"].(string); id == "" {
			t.Errorf("the record has no request_id: %v", records[0])
		}
	}
	if !withData {
		if ref == "" && w.Server && len(records) == 1 { // no data to carry it: the record's
			ref, _ = records[0]["ref"].(string)
		}
		if len(r.Err.Data) != 0 && string(r.Err.Data) != "null" {
			t.Errorf("data = %s, want none", r.Err.Data)
		}
		checkLog(t, Expect{Code: w.EnvCode, Masked: w.Masked, Server: w.Server, Logged: w.Logged, LogContains: w.LogContains}, records, ref)
		return
	}
	var data map[string]any
	if err := json.Unmarshal(r.Err.Data, &data); err != nil {
		t.Fatalf("data %q is not a JSON object: %v", r.Err.Data, err)
	}
	ValidateEnvelope(t, data)
	if ref == "" && w.Server { // the message is the tool's own words
		ref, _ = data["ref"].(string)
	}
	if len(records) == 1 && data["requestId"] != records[0]["request_id"] {
		t.Errorf("data requestId %v, record request_id %v: want the same", data["requestId"], records[0]["request_id"])
	}
	if data["error"] != true || data["code"] != string(w.EnvCode) || data["message"] != wantMsg {
		t.Errorf("data = %s, want the envelope: code %s, message %q", r.Err.Data, w.EnvCode, wantMsg)
	}
	if ts, _ := data["timestamp"].(string); ts == "" {
		t.Errorf("data has no timestamp: %s", r.Err.Data)
	}
	if _, has := data["retryable"].(bool); !has {
		t.Errorf("data has no retryable: %s", r.Err.Data)
	}
	if uri, _ := data["uri"].(string); w.URI != (uri != "") || w.URI && uri != c.Target {
		t.Errorf("data uri = %q, want %v (%s)", uri, w.URI, c.Target)
	}
	if (w.Masked || w.Server) && (ref == "" || data["ref"] != ref) {
		t.Errorf("masked error: message ref %q, data ref %v; want the same non-empty ref", ref, data["ref"])
	}
	checkLog(t, Expect{Code: w.EnvCode, Masked: w.Masked, Server: w.Server, Logged: w.Logged, LogContains: w.LogContains}, records, ref)
	if len(records) == 1 {
		if got, _ := records[0]["msg"].(string); got != map[Kind]string{KindResource: "resource read failed",
			KindPrompt: "prompt get failed", KindCompletion: "completion failed"}[c.Kind] {
			t.Errorf("record msg = %q for a %s", got, c.Kind)
		}
	}
}
