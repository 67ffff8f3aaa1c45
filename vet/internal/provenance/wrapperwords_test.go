package provenance

import "testing"

// TestWrapperWords checks which formats split into the server's words and
// the error they wrap.
func TestWrapperWords(t *testing.T) {
	for _, c := range []struct {
		lit   string
		nargs int
		want  string // "" when it does not split
	}{
		{`"failed to search issues: %v"`, 1, `"failed to search issues"`},
		{`"get user %s: %w"`, 2, `"get user %s"`},
		{"`list runs - %w`", 1, "`list runs`"},
		{`"100%% done: %w"`, 1, `"100%% done"`},
		{`"recursive call? content:\n%s"`, 1, `"recursive call? content"`},
		{`"list runs:\n\t%w"`, 1, `"list runs"`},
		{"`list runs:\n\t%w`", 1, "`list runs`"},
		{`"a path ending in \\n%s"`, 1, `"a path ending in \\n"`}, // an escaped backslash, then n
		{`"%s: %w"`, 2, ""},                                       // no word of the server's
		{`"%w: retrying"`, 1, ""},                                 // the error is not last
		{`"get %s: %+v"`, 2, ""},                                  // not a plain verb
		{`"get %[2]s: %[1]w"`, 2, ""},                             // indexed arguments
		{`"get %s: %w"`, 1, ""},                                   // verbs and arguments disagree
	} {
		got, ok := wrapperWords(c.lit, c.nargs)
		if !ok {
			got = ""
		}
		if got != c.want {
			t.Errorf("wrapperWords(%s, %d) = %q, want %q", c.lit, c.nargs, got, c.want)
		}
	}
}
