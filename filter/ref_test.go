package filter

import (
	"regexp"
	"testing"
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
