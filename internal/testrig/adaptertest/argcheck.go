package adaptertest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// CheckedTool is the name of the tool of the argument-check cases.
const CheckedTool = "place_order"

// CheckedSchema is the input schema of CheckedTool: a customer, and items
// each with a sku and a whole quantity of at least 1.
var CheckedSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"customer": {"type": "string"},
		"items": {"type": "array", "items": {
			"type": "object",
			"properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
			"required": ["sku", "qty"]
		}}
	},
	"required": ["customer", "items"]
}`)

// CheckedReply is the text CheckedTool's handler answers with when it
// runs and succeeds.
const CheckedReply = "order placed"

// ArgumentCase is one call of CheckedTool and what an adapter whose
// argument check is on must answer: nil Fields for a call whose arguments
// fit, which reaches the handler.
type ArgumentCase struct {
	Name string
	Args map[string]any
	// Fields are the JSON Pointers the refusal's details name, in order.
	Fields []string
	// Texts are the text blocks the refusal sends, exactly: the same on
	// both SDKs.
	Texts []string
}

// ArgumentCases are the calls of CheckedTool every adapter's argument check
// answers the same way. Each refused value holds Canary, which must not
// reach the client.
func ArgumentCases() []ArgumentCase {
	return []ArgumentCase{
		{Name: "fits", Args: map[string]any{"customer": "ann", "items": []any{map[string]any{"sku": "A1", "qty": 2}}}},
		{Name: "a required field is missing", Args: map[string]any{"items": []any{}},
			Fields: []string{"/customer"},
			Texts: []string{"Validation failed for customer: is required",
				"Code: VALIDATION_ERROR\nDetails: " + `{"violations":[{"constraint":"is required","field":"customer","pointer":"/customer","reason":"required"}]}` +
					"\nRetry: no, not with the same arguments."}},
		{Name: "a nested value of the wrong type", Args: map[string]any{"customer": "ann", "items": []any{
			map[string]any{"sku": "A1", "qty": 1}, map[string]any{"sku": "B2", "qty": "two " + Canary}}},
			Fields: []string{"/items/1/qty"},
			Texts: []string{"Validation failed for items/1/qty: must be integer, not string",
				"Code: VALIDATION_ERROR\nDetails: " + `{"violations":[{"constraint":"must be integer, not string","field":"items/1/qty","pointer":"/items/1/qty","reason":"type"}]}` +
					"\nRetry: no, not with the same arguments."}},
		{Name: "every field that does not fit", Args: map[string]any{"customer": 7, "items": []any{map[string]any{"qty": 0}}},
			Fields: []string{"/customer", "/items/0/qty", "/items/0/sku"}},
	}
}

// RunArgumentCases calls CheckedTool with each of ArgumentCases through
// call, on a server whose argument check is on, whose handler counts its
// calls in ran and which logs into log, and checks each answer
// (CheckRefusal) and its records: one below error level for a refusal,
// none for a success. ran is read after each call; every call is made
// before the next starts.
func RunArgumentCases(t testing.TB, call func(args map[string]any) Result, ran func() int64, log *Log) {
	t.Helper()
	for _, c := range ArgumentCases() {
		before := ran()
		CheckRefusal(t, c, call(c.Args), ran() > before)
		recs := log.Records(t)
		if c.Fields != nil && (len(recs) != 1 || recs[0]["level"] == "ERROR" || recs[0]["code"] != "VALIDATION_ERROR") {
			t.Errorf("%s: records %v, want one VALIDATION_ERROR record below error level", c.Name, recs)
		}
		if c.Fields == nil && len(recs) != 0 {
			t.Errorf("%s: records %v for a success", c.Name, recs)
		}
	}
}

// CheckRefusal checks r, the answer to c on a server whose argument check
// is on: the refusal with exactly the fields and texts of c, no value, and
// ran false; or, for arguments that fit, the handler's own reply.
func CheckRefusal(t testing.TB, c ArgumentCase, r Result, ran bool) {
	t.Helper()
	if strings.Contains(string(r.Raw), Canary) {
		t.Errorf("%s: the answer %s holds the refused value", c.Name, r.Raw)
	}
	if c.Fields == nil {
		if r.ProtocolErr != nil || r.IsError || !ran || !slices.Equal(r.Texts, []string{CheckedReply}) {
			t.Errorf("%s: got %s, %v (handler ran: %v), want the handler's reply", c.Name, r.Raw, r.ProtocolErr, ran)
		}
		return
	}
	if ran {
		t.Errorf("%s: the handler ran; the check must refuse before it", c.Name)
	}
	env := r.Envelope()
	if r.ProtocolErr != nil || !r.IsError || env == nil || env["code"] != "VALIDATION_ERROR" {
		t.Fatalf("%s: got %s, %v, want a VALIDATION_ERROR result with the envelope", c.Name, r.Raw, r.ProtocolErr)
	}
	if c.Texts != nil && !slices.Equal(r.Texts, c.Texts) {
		t.Errorf("%s: texts %q, want %q", c.Name, r.Texts, c.Texts)
	}
	if got := RefusedFields(env); !slices.Equal(got, c.Fields) {
		t.Errorf("%s: the details name %q, want %q", c.Name, got, c.Fields)
	}
}

// RefusedFields returns the JSON Pointers of the violations in a
// VALIDATION_ERROR envelope's details, in order.
func RefusedFields(env map[string]any) []string {
	details, _ := env["details"].(map[string]any)
	vs, _ := details["violations"].([]any)
	var out []string
	for _, v := range vs {
		m, _ := v.(map[string]any)
		p, _ := m["pointer"].(string)
		out = append(out, p)
	}
	return out
}
