package pgxfilter

import "unicode"

// maxIdentifier bounds a name the pack sends.
const maxIdentifier = 128

// sendable returns name if it is a plain SQL identifier, and "" otherwise:
// the server's own names (orders_ref_key) are identifiers, but a function
// that raises an error (RAISE ... USING CONSTRAINT = ..., TABLE = ...,
// COLUMN = ...) or a quoted identifier can put any text in these fields,
// a value among it, and what is not an identifier is never sent.
func sendable(name string) string {
	if !identifier(name) {
		return ""
	}
	return name
}

// identifier reports whether s is a plain SQL identifier: a letter or '_'
// then letters, digits, '_' or '$', at most maxIdentifier bytes. It is the
// rule of the sqlitefilter pack.
func identifier(s string) bool {
	if s == "" || len(s) > maxIdentifier {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || unicode.IsLetter(r):
		case i > 0 && (r == '$' || unicode.IsDigit(r)):
		default:
			return false
		}
	}
	return true
}
