package mcperrtest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/mcperrtest"
)

// Responses as a client receives them, for the tests of this package.
const (
	notFoundResponse = `{"jsonrpc":"2.0","id":3,"result":{"_meta":{"io.github.mcperr/error":{"error":true,"code":"NOT_FOUND",` +
		`"message":"Order not found: ord_404","details":{"resourceType":"Order","resourceId":"ord_404"},` +
		`"timestamp":"2026-01-15T10:30:00Z","retryable":false}},` +
		`"content":[{"type":"text","text":"Order not found: ord_404"},{"type":"text","text":"Hint: List the orders first."}],"isError":true}}`
	maskedResponse = `{"jsonrpc":"2.0","id":4,"result":{"_meta":{"io.github.mcperr/error":{"error":true,"code":"INTERNAL_ERROR",` +
		`"message":"Internal error in tool \"lookup\" (ref: 9b1c04e2d7a35f68).","timestamp":"2026-01-15T10:30:00Z",` +
		`"ref":"9b1c04e2d7a35f68","retryable":false}},` +
		`"content":[{"type":"text","text":"Internal error in tool \"lookup\" (ref: 9b1c04e2d7a35f68)."}],"isError":true}}`
	validationResponse = `{"jsonrpc":"2.0","id":5,"result":{"_meta":{"io.github.mcperr/error":{"error":true,"code":"VALIDATION_ERROR",` +
		`"message":"Validation failed for b: is required","details":{"violations":[{"field":"b","constraint":"is required"}]},` +
		`"timestamp":"2026-01-15T10:30:00Z","retryable":false}},` +
		`"content":[{"type":"text","text":"Validation failed for b: is required"}],"isError":true}}`
	successResponse = `{"jsonrpc":"2.0","id":6,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1"}},` +
		`"content":[{"type":"text","text":"0.5"}],"structuredContent":{"quotient":0.5}}}`
	protocolErrorResponse = `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"unknown tool \"nope\""}}`
)

func parse(t *testing.T, tool, response string) *mcperrtest.Result {
	t.Helper()
	res, err := mcperrtest.ParseResponse(tool, []byte(response))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestParseResponseToolError(t *testing.T) {
	res := parse(t, "get_order", notFoundResponse)
	if res.Tool != "get_order" || !res.IsError || res.ProtocolError != nil {
		t.Errorf("tool %q, isError %t, protocol error %v", res.Tool, res.IsError, res.ProtocolError)
	}
	if got := res.Texts(); len(got) != 2 || got[0] != "Order not found: ord_404" || got[1] != "Hint: List the orders first." {
		t.Errorf("texts = %q", got)
	}
	if res.Text() != "Order not found: ord_404" {
		t.Errorf("text = %q", res.Text())
	}
	env := res.Envelope
	if env == nil || !env.Error || env.Code != codes.NotFound || env.Timestamp != "2026-01-15T10:30:00Z" {
		t.Fatalf("envelope = %+v", env)
	}
	var details map[string]any
	if err := json.Unmarshal(env.Details, &details); err != nil || details["resourceId"] != "ord_404" || details["resourceType"] != "Order" {
		t.Errorf("details = %s (%v)", env.Details, err)
	}
	if string(res.Raw) != notFoundResponse {
		t.Errorf("raw = %s", res.Raw)
	}
}

func TestParseResponseSuccess(t *testing.T) {
	res := parse(t, "divide", successResponse)
	if res.IsError || res.Envelope != nil || string(res.StructuredContent) != `{"quotient":0.5}` || len(res.Meta) != 1 {
		t.Errorf("result = %+v", res)
	}
}

func TestParseResponseProtocolError(t *testing.T) {
	res := parse(t, "nope", protocolErrorResponse)
	if res.ProtocolError == nil || res.ProtocolError.Code != -32602 || res.ProtocolError.Error() != `JSON-RPC error -32602: unknown tool "nope"` {
		t.Fatalf("protocol error = %v", res.ProtocolError)
	}
	if res.Text() != "" || res.Texts() != nil {
		t.Errorf("a protocol error has texts %q", res.Texts())
	}
}

func TestParseResponseRefusesWhatIsNoResponse(t *testing.T) {
	for _, bad := range []string{
		`not json`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[1]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"io.github.mcperr/error":"NOT_FOUND"}}}`,
	} {
		if res, err := mcperrtest.ParseResponse("x", []byte(bad)); err == nil {
			t.Errorf("ParseResponse(%s) = %+v, want an error", bad, res)
		}
	}
}

func TestResultString(t *testing.T) {
	got := parse(t, "get_order", notFoundResponse).String()
	for _, want := range []string{
		`the client received, for tools/call "get_order", a tool result (isError: true):`,
		`"text": "Order not found: ord_404"`,
		`"code": "NOT_FOUND"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("String() lacks %q:\n%s", want, got)
		}
	}
	if got := parse(t, "nope", protocolErrorResponse).String(); !strings.Contains(got, "a JSON-RPC error (code -32602)") {
		t.Errorf("String() of a protocol error:\n%s", got)
	}
	if got := (*mcperrtest.Result)(nil).String(); !strings.Contains(got, "nothing") {
		t.Errorf("String() of nil = %q", got)
	}
	bad := &mcperrtest.Result{Tool: "x", Raw: []byte("not json")}
	if got := bad.String(); !strings.Contains(got, `"not json"`) {
		t.Errorf("String() of a result whose Raw is no JSON:\n%s", got)
	}
}
