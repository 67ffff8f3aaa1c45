package filter

import (
	"errors"
	"fmt"
	"regexp"
	"testing"

	crdb "github.com/cockroachdb/errors"
)

func TestRefsAreUniqueHex(t *testing.T) {
	hex16 := regexp.MustCompile(`^[0-9a-f]{16}$`)
	seen := map[string]bool{}
	for range 10000 {
		r := newRef()
		if !hex16.MatchString(r) || seen[r] {
			t.Fatalf("ref %q repeated or not 16 hex digits", r)
		}
		seen[r] = true
	}
}

// TestCockroachLayers checks that the layers of cockroachdb/errors that the
// pipeline names, rather than imports, are what that package makes.
func TestCockroachLayers(t *testing.T) {
	base := errors.New("x")
	for _, tt := range []struct {
		err  error
		want []typeName
	}{
		{crdb.WithHint(base, "h"), []typeName{hintLayer}},
		{crdb.WithStack(base), []typeName{stackLayer}},
		{crdb.WithMessage(base, "m"), []typeName{prefixLayer}},
		{crdb.Wrap(base, "m"), []typeName{stackLayer, prefixLayer}},
	} {
		var got []typeName
		for e := tt.err; e != nil && e != base; e = errors.Unwrap(e) {
			got = append(got, nameOf(e))
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("layers of %#v = %v, want %v", tt.err, got, tt.want)
		}
	}
	if !hasStack(crdb.New("x")) || hasStack(base) {
		t.Error("hasStack does not tell a cockroachdb/errors stack")
	}
}
