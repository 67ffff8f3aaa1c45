package codes

// Code names one kind of failure, such as NOT_FOUND. It is sent to the
// client as a string in the error envelope. The zero Code means "unset"; at
// the boundary an unset code becomes InternalError.
type Code string

// maxLen is the longest name a Code may have.
const maxLen = 64

// upperSnake reports whether s matches ^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$.
func upperSnake(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' || s[len(s)-1] == '_' {
		return false
	}
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '_' && s[i-1] != '_':
		default:
			return false
		}
	}
	return true
}
