package filter

import (
	"regexp"
	"strings"
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

func TestValidRef(t *testing.T) {
	for _, ref := range []string{"a", "ref-1", "A.b_c-9", strings.Repeat("r", 64)} {
		if !validRef(ref) {
			t.Errorf("validRef(%q) = false", ref)
		}
	}
	for _, ref := range []string{"", strings.Repeat("r", 65), "has space", "new\nline", "é", "a/b", "ref:1"} {
		if validRef(ref) {
			t.Errorf("validRef(%q) = true", ref)
		}
	}
}
