package codes

import "testing"

// TestBuiltinTable checks the package's own table of built-in codes: each
// entry would pass NewRegistry's checks, and none is listed twice.
func TestBuiltinTable(t *testing.T) {
	if len(builtins) != 14 {
		t.Errorf("%d built-in codes, want the 14 constants", len(builtins))
	}
	seen := map[Code]bool{}
	for _, in := range builtins {
		if err := in.validate(); err != nil {
			t.Errorf("built-in %s: %v", in.Code, err)
		}
		if seen[in.Code] {
			t.Errorf("built-in %s listed twice", in.Code)
		}
		seen[in.Code] = true
	}
}
