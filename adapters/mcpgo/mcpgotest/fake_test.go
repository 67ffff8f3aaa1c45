package mcpgotest_test

import (
	"testing"

	"github.com/mcperr/mcperr/internal/testrig/faketb"
)

// fakeTB records what a test reports instead of failing.
type fakeTB = faketb.TB

// wantFailure fails t unless f reported exactly one failure holding every
// one of wants and what the client received.
func wantFailure(t *testing.T, f *fakeTB, wants ...string) {
	t.Helper()
	faketb.WantFailure(t, f, "the client received, for ", wants...)
}
