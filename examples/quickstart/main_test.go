package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/testrig/exampletest"
	"github.com/mcperr/mcperr/mcperrtest"
)

// TestQuickstart runs the program and checks what it prints.
func TestQuickstart(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	exampletest.Quickstart(t, stdout.String(), stderr.String())
}

// TestErrors proves the server's error behaviour with mcperr's test kit,
// under each protocol version go-sdk speaks.
func TestErrors(t *testing.T) {
	for _, version := range gosdktest.ProtocolVersions() {
		t.Run(version, func(t *testing.T) {
			log := mcperrtest.NewLog(t)
			s, err := newServer(log.Logger())
			if err != nil {
				t.Fatal(err)
			}
			c := gosdktest.Connect(t, s, gosdktest.WithProtocolVersion(version))

			// A ToolError reaches the model exactly as written.
			mcperrtest.AssertToolError(t, c.Call("divide", map[string]any{"a": 1, "b": 0}), codes.ToolFailed, "b must not be zero.")

			// Anything else is masked, and its ref is in exactly one log record.
			res := c.Call("lookup", nil)
			ref := mcperrtest.AssertMasked(t, res, log)
			mcperrtest.AssertNoCanary(t, res, "10.0.0.12")

			// Arguments that do not fit the schema never reach the handler.
			mcperrtest.AssertValidation(t, c.Call("divide", map[string]any{"a": 1}), "b")

			// Success is untouched.
			mcperrtest.AssertSuccess(t, c.Call("divide", map[string]any{"a": 1, "b": 4}))

			if recs := log.WithRef(ref); len(recs) == 1 && recs[0].Attrs["error"] != "connection refused by 10.0.0.12:5432" {
				t.Errorf("the record of ref %s does not hold the error: %v", ref, recs[0])
			}
		})
	}
}
