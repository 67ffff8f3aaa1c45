package mcperrtest_test

import (
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/mcperrtest"
)

// check runs assert under a fake TB and returns the fake and what the
// assertion returned.
func check[T any](assert func(tb testing.TB) T) (*fakeTB, T) {
	f := &fakeTB{}
	var got T
	f.Run(func(tb testing.TB) { got = assert(tb) })
	return f, got
}

func TestAssertToolError(t *testing.T) {
	res := parse(t, "get_order", notFoundResponse)
	f, ok := check(func(tb testing.TB) bool {
		return mcperrtest.AssertToolError(tb, res, codes.NotFound, "Order not found: ord_404")
	})
	wantPass(t, f)
	if !ok {
		t.Error("AssertToolError returned false on a pass")
	}

	cases := []struct {
		name    string
		res     *mcperrtest.Result
		code    codes.Code
		message string
		wants   []string
	}{
		{"wrong code", res, codes.Conflict, "Order not found: ord_404",
			[]string{`AssertToolError(CONFLICT, "Order not found: ord_404") failed`, "the envelope's code is NOT_FOUND, want CONFLICT", `"code": "NOT_FOUND"`}},
		{"wrong message", res, codes.NotFound, "Order not found: ord_1",
			[]string{`the message (content[0]) is "Order not found: ord_404", want "Order not found: ord_1"`,
				`the envelope's message is "Order not found: ord_404", want "Order not found: ord_1"`}},
		{"a success", parse(t, "divide", successResponse), codes.NotFound, "x",
			[]string{"isError is false, want true", "no mcperr envelope", `"text": "0.5"`}},
		{"a protocol error", parse(t, "nope", protocolErrorResponse), codes.NotFound, "x",
			[]string{"a JSON-RPC error (code -32602", "not a tool result"}},
		{"no result", nil, codes.NotFound, "x", []string{"there is no result (nil)", "the client received nothing"}},
		{"no content", parse(t, "x", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`), codes.NotFound, "x",
			[]string{"the result has no content"}},
		{"an image first", parse(t, "x", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"","mimeType":"image/png"}],"isError":true}}`),
			codes.NotFound, "x", []string{`content[0] is a "image" block`}},
		{"an envelope that says no error", parse(t, "x", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}],"isError":true,`+
			`"_meta":{"io.github.mcperr/error":{"error":false,"code":"NOT_FOUND","message":"x"}}}}`), codes.NotFound, "x",
			[]string{"the envelope's error is false, want true"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, ok := check(func(tb testing.TB) bool { return mcperrtest.AssertToolError(tb, c.res, c.code, c.message) })
			wantFailure(t, f, c.wants...)
			if ok {
				t.Error("AssertToolError returned true on a failure")
			}
		})
	}
}

func TestAssertMasked(t *testing.T) {
	res := parse(t, "lookup", maskedResponse)
	log := mcperrtest.NewLog(t)
	log.Logger().Info("tool call failed", "tool", "divide", "code", "TOOL_ERROR")
	log.Logger().Error("tool call failed", "tool", "lookup", "code", "INTERNAL_ERROR", "ref", "9b1c04e2d7a35f68", "error", "dial: password=hunter2")
	f, ref := check(func(tb testing.TB) string { return mcperrtest.AssertMasked(tb, res, log) })
	wantPass(t, f)
	if ref != "9b1c04e2d7a35f68" {
		t.Errorf("ref = %q", ref)
	}

	twice := mcperrtest.NewLog(t)
	twice.Logger().Error("tool call failed", "ref", "9b1c04e2d7a35f68")
	twice.Logger().Error("tool call failed again", "ref", "9b1c04e2d7a35f68")
	low := mcperrtest.NewLog(t)
	low.Logger().Info("tool call failed", "ref", "9b1c04e2d7a35f68")
	mentioned := mcperrtest.NewLog(t)
	mentioned.Logger().Error("saw 9b1c04e2d7a35f68 somewhere")
	other := mcperrtest.NewLog(t)
	other.Logger().Error("tool call failed", "ref", "0000000000000000")

	cases := []struct {
		name  string
		res   *mcperrtest.Result
		log   *mcperrtest.Log
		wants []string
	}{
		{"ref not logged", res, other, []string{"ref 9b1c04e2d7a35f68 is named by 0 log records, want exactly 1", "the server logged 1 records:", `ref="0000000000000000"`}},
		{"ref logged twice", res, twice, []string{"is named by 2 log records"}},
		{"ref logged below error", res, low, []string{"is at level INFO, want ERROR"}},
		{"ref only mentioned", res, mentioned, []string{"has ref attribute <nil>, want 9b1c04e2d7a35f68"}},
		{"no log", res, nil, []string{"no Log to find the ref in"}},
		{"a tool error", parse(t, "get_order", notFoundResponse), log,
			[]string{"the envelope's code is NOT_FOUND, want INTERNAL_ERROR", `is "Order not found: ord_404", want exactly Internal error in tool "x" (ref: R).`}},
		{"another tool's text", parse(t, "divide", maskedResponse), log, []string{`the message names tool "lookup", want "divide"`}},
		{"the error's text exposed", parse(t, "lookup", strings.Replace(maskedResponse, `68).","timestamp`, `68). dial: refused","timestamp`, 1)), log,
			[]string{`the envelope's message is "Internal error in tool \"lookup\" (ref: 9b1c04e2d7a35f68). dial: refused", want the text of content[0]`}},
		{"envelope ref differs", parse(t, "lookup", strings.Replace(maskedResponse, `"ref":"9b1c04e2d7a35f68"`, `"ref":"1111111111111111"`, 1)), log,
			[]string{`the envelope's ref is "1111111111111111", want the message's "9b1c04e2d7a35f68"`}},
		{"a success", parse(t, "divide", successResponse), log, []string{"isError is false, want true"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, ref := check(func(tb testing.TB) string { return mcperrtest.AssertMasked(tb, c.res, c.log) })
			wantFailure(t, f, append(c.wants, "mcperrtest.AssertMasked failed")...)
			if ref != "" {
				t.Errorf("AssertMasked returned ref %q on a failure", ref)
			}
		})
	}
}

func TestAssertValidation(t *testing.T) {
	res := parse(t, "divide", validationResponse)
	for _, fields := range [][]string{{"b"}, nil} {
		f, ok := check(func(tb testing.TB) bool { return mcperrtest.AssertValidation(tb, res, fields...) })
		wantPass(t, f)
		if !ok {
			t.Errorf("AssertValidation(%q) returned false on a pass", fields)
		}
	}
	two := parse(t, "x", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Validation failed"}],"isError":true,`+
		`"_meta":{"io.github.mcperr/error":{"error":true,"code":"VALIDATION_ERROR","message":"Validation failed",`+
		`"details":{"violations":[{"field":"a"},{"field":"b"}]}}}}}`)
	f, _ := check(func(tb testing.TB) bool { return mcperrtest.AssertValidation(tb, two, "b", "a") })
	wantPass(t, f)

	cases := []struct {
		name   string
		res    *mcperrtest.Result
		fields []string
		wants  []string
	}{
		{"another field", res, []string{"a"}, []string{"AssertValidation(a) failed", `the violated fields are ["b"], want ["a"]`}},
		{"one field more", res, []string{"a", "b"}, []string{`the violated fields are ["b"], want ["a" "b"]`}},
		{"one field fewer", two, []string{"a"}, []string{`the violated fields are ["a" "b"], want ["a"]`}},
		{"not a validation error", parse(t, "get_order", notFoundResponse), []string{"b"},
			[]string{"the envelope's code is NOT_FOUND, want VALIDATION_ERROR", "the envelope's details have no violations[]"}},
		{"a value sent", parse(t, "x", strings.Replace(validationResponse, `"field":"b"`, `"field":"b","value":"hunter2"`, 1)), []string{"b"},
			[]string{"violations[0] carries the refused value to the client"}},
		{"a violation without field", parse(t, "x", strings.Replace(validationResponse, `"field":"b"`, `"name":"b"`, 1)), nil,
			[]string{"violations[0] names no field"}},
		{"texts differ", parse(t, "x", strings.Replace(validationResponse, `"text":"Validation failed for b: is required"`, `"text":"bad"`, 1)), []string{"b"},
			[]string{`the message (content[0]) is "bad", the envelope's "Validation failed for b: is required"; want the same`}},
		{"a protocol error", parse(t, "nope", protocolErrorResponse), nil, []string{"AssertValidation failed", "not a tool result"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, ok := check(func(tb testing.TB) bool { return mcperrtest.AssertValidation(tb, c.res, c.fields...) })
			wantFailure(t, f, c.wants...)
			if ok {
				t.Error("AssertValidation returned true on a failure")
			}
		})
	}
}

func TestAssertNoCanary(t *testing.T) {
	const canary = "hunter2<&>"
	f, ok := check(func(tb testing.TB) bool {
		return mcperrtest.AssertNoCanary(tb, parse(t, "lookup", maskedResponse), canary)
	})
	wantPass(t, f)
	if !ok {
		t.Error("AssertNoCanary returned false on a pass")
	}
	withText := func(text string) *mcperrtest.Result {
		return parse(t, "x", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+text+`"}],"isError":true}}`)
	}
	cases := []struct {
		name  string
		res   *mcperrtest.Result
		wants []string
	}{
		{"HTML-escaped", withText(`dial: hunter2\u003c\u0026\u003e refused`),
			[]string{`AssertNoCanary("hunter2<&>") failed`, `the client received the canary as "hunter2\\u003c\\u0026\\u003e"`, "in result.content[0].text"}},
		{"as written", withText(`dial: hunter2<&> refused`), []string{`the client received the canary as "hunter2<&>"`}},
		{"escaped otherwise", withText(`dial: \u0068unter2<&> refused`), []string{"the client received the canary in result.content[0].text"}},
		{"in a key", parse(t, "x", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"hunter2<&>":1}}}`),
			[]string{`the client received the canary in the key "hunter2<&>" of result._meta`}},
		{"in a protocol error", parse(t, "x", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"hunter2<&>"}}`),
			[]string{"the client received the canary in error.message"}},
		{"no result", nil, []string{"there is no result (nil)"}},
		{"no raw response", &mcperrtest.Result{Tool: "x"}, []string{"the result holds no raw response to search"}},
		{"raw that is no JSON", &mcperrtest.Result{Tool: "x", Raw: []byte("{")}, []string{"the response is not JSON"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, ok := check(func(tb testing.TB) bool { return mcperrtest.AssertNoCanary(tb, c.res, canary) })
			wantFailure(t, f, c.wants...)
			if ok {
				t.Error("AssertNoCanary returned true on a failure")
			}
		})
	}
	t.Run("empty canary", func(t *testing.T) {
		f, _ := check(func(tb testing.TB) bool { return mcperrtest.AssertNoCanary(tb, parse(t, "x", successResponse), "") })
		if len(f.Fatals()) != 1 || !strings.Contains(f.Fatals()[0], "the canary is empty") {
			t.Errorf("reported %q", f.Reported())
		}
	})
}

func TestAssertSuccess(t *testing.T) {
	f, ok := check(func(tb testing.TB) bool { return mcperrtest.AssertSuccess(tb, parse(t, "divide", successResponse)) })
	wantPass(t, f)
	if !ok {
		t.Error("AssertSuccess returned false on a pass")
	}
	cases := []struct {
		name  string
		res   *mcperrtest.Result
		wants []string
	}{
		{"a tool error", parse(t, "get_order", notFoundResponse), []string{"AssertSuccess failed", "isError is true, want false", `the model read "Order not found: ord_404"`, `_meta["io.github.mcperr/error"]`}},
		{"an envelope on success", parse(t, "x", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"io.github.mcperr/error":{"error":true}}}}`),
			[]string{`the result carries an mcperr envelope in _meta["io.github.mcperr/error"]`}},
		{"a protocol error", parse(t, "nope", protocolErrorResponse), []string{"not a tool result"}},
		{"no result", nil, []string{"there is no result (nil)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, ok := check(func(tb testing.TB) bool { return mcperrtest.AssertSuccess(tb, c.res) })
			wantFailure(t, f, c.wants...)
			if ok {
				t.Error("AssertSuccess returned true on a failure")
			}
		})
	}
}

func TestAssertProtocolError(t *testing.T) {
	f, ok := check(func(tb testing.TB) bool {
		return mcperrtest.AssertProtocolError(tb, parse(t, "nope", protocolErrorResponse), -32602)
	})
	wantPass(t, f)
	if !ok {
		t.Error("AssertProtocolError returned false on a pass")
	}
	cases := []struct {
		name  string
		res   *mcperrtest.Result
		wants []string
	}{
		{"another code", parse(t, "nope", protocolErrorResponse), []string{"AssertProtocolError(-32602) failed", "the JSON-RPC error's code is -32601, want -32602"}},
		{"a tool result", parse(t, "get_order", notFoundResponse), []string{"the server answered with a tool result (isError: true), not a JSON-RPC error"}},
		{"no result", nil, []string{"there is no result (nil)"}},
	}
	cases[0].res.ProtocolError.Code = -32601
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, ok := check(func(tb testing.TB) bool { return mcperrtest.AssertProtocolError(tb, c.res, -32602) })
			wantFailure(t, f, c.wants...)
			if ok {
				t.Error("AssertProtocolError returned true on a failure")
			}
		})
	}
}
