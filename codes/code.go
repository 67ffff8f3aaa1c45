package codes

import "strconv"

// Code names one kind of failure, such as NOT_FOUND. It is sent to the
// client as a string in the error envelope. The zero Code means "unset"; at
// the boundary an unset code becomes InternalError.
type Code string

// maxLen is the longest name a Code may have.
const maxLen = 64

// validate reports whether c is a well-formed name: UPPER_SNAKE (capital
// letters, digits and single underscores, starting with a letter), at most
// 64 characters. It returns a *DefinitionError with mistake InvalidCode
// that says what to fix.
func (c Code) validate() error {
	switch {
	case c == "":
		return &DefinitionError{Mistake: InvalidCode, Subject: "", Reason: "a code must not be empty"}
	case len(c) > maxLen:
		return &DefinitionError{Mistake: InvalidCode, Subject: string(c),
			Reason: "a code must be at most " + strconv.Itoa(maxLen) + " characters long, this one has " + strconv.Itoa(len(c))}
	case !upperSnake(string(c)):
		return &DefinitionError{Mistake: InvalidCode, Subject: string(c),
			Reason: "a code must be UPPER_SNAKE: capital letters, digits and single underscores, starting with a letter (for example INSUFFICIENT_FUNDS)"}
	}
	return nil
}

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
