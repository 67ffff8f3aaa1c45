package sqlitefilter

import (
	"strings"
	"testing"
)

// TestIdentifier pins what the pack takes for an identifier it may send.
func TestIdentifier(t *testing.T) {
	for s, want := range map[string]bool{
		"orders":                 true,
		"_x":                     true,
		"qty_positive":           true,
		"t$1":                    true,
		"größe":                  true,
		"":                       false,
		"1a":                     false,
		"$a":                     false,
		"odd table":              false,
		"a,b":                    false,
		"length(note) < 40":      false,
		"x'y":                    false,
		"a.b":                    false,
		strings.Repeat("a", 128): true,
		strings.Repeat("a", 129): false,
	} {
		if got := identifier(s); got != want {
			t.Errorf("identifier(%q) = %t, want %t", s, got, want)
		}
	}
}
