package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestRun runs the program and checks that the failed call is on standard
// output as a span and as a metric point, with the conventions' attributes,
// and that the error's text is not.
func TestRun(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	dec := json.NewDecoder(&stdout)
	var span struct {
		Name   string
		Parent struct {
			TraceID, SpanID string
			Remote          bool
		}
		Attributes []struct {
			Key   string
			Value struct{ Value any }
		}
		Status struct{ Code, Description string }
	}
	if err := dec.Decode(&span); err != nil {
		t.Fatal(err)
	}
	attrs := map[string]any{}
	for _, a := range span.Attributes {
		attrs[a.Key] = a.Value.Value
	}
	if span.Name != "tools/call lookup" || span.Parent.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || !span.Parent.Remote ||
		attrs["error.type"] != "tool_error" || attrs["mcperr.code"] != "INTERNAL_ERROR" || attrs["mcperr.ref"] == nil || span.Status.Code != "Error" {
		t.Errorf("span: %+v", span)
	}
	ref, _ := attrs["mcperr.ref"].(string)
	if !strings.Contains(stderr.String(), "ref="+ref) || !strings.Contains(span.Status.Description, "(ref: "+ref+")") {
		t.Errorf("the ref %s is not in the log and the status:\n%s\n%s", ref, stderr.String(), span.Status.Description)
	}
	for _, want := range []string{`"mcp.server.operation.duration"`, `"Value": "tool_error"`, `"Count": 1`} {
		if !strings.Contains(out, want) {
			t.Errorf("the metrics do not hold %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "10.0.0.12") {
		t.Error("the error's text reached the telemetry")
	}
}
