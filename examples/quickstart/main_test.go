package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/mcperr/mcperr/internal/exampletest"
)

func TestQuickstart(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	exampletest.Quickstart(t, stdout.String(), stderr.String())
}
