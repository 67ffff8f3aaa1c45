package codes

import (
	"fmt"
	"regexp"
)

// Code names one kind of failure, such as NOT_FOUND. It is sent to the client
// as a string in the error envelope. The zero Code means "unset"; at the
// boundary an unset code becomes InternalError.
type Code string

// MaxLen is the longest name a Code may have.
const MaxLen = 64

var namePattern = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)

// String returns the code's name.
func (c Code) String() string { return string(c) }

// IsZero reports whether c is unset.
func (c Code) IsZero() bool { return c == "" }

// MarshalText implements encoding.TextMarshaler. An unset code marshals as
// the empty string.
func (c Code) MarshalText() ([]byte, error) { return []byte(c), nil }

// UnmarshalText implements encoding.TextUnmarshaler. It accepts the empty
// string (an unset code) and any well-formed name; it refuses a malformed one.
func (c *Code) UnmarshalText(text []byte) error {
	s := string(text)
	if s != "" {
		if err := Code(s).Validate(); err != nil {
			return err
		}
	}
	*c = Code(s)
	return nil
}

// Validate reports whether c is a well-formed name: UPPER_SNAKE (capital
// letters, digits and single underscores, starting with a letter), at most
// MaxLen characters. It returns a *DefinitionError with code InvalidCode
// that says what to fix.
func (c Code) Validate() error {
	switch {
	case c == "":
		return &DefinitionError{Code: InvalidCode, Subject: "", Reason: "a code must not be empty"}
	case len(c) > MaxLen:
		return &DefinitionError{Code: InvalidCode, Subject: string(c),
			Reason: fmt.Sprintf("a code must be at most %d characters long, this one has %d", MaxLen, len(c))}
	case !namePattern.MatchString(string(c)):
		return &DefinitionError{Code: InvalidCode, Subject: string(c),
			Reason: "a code must be UPPER_SNAKE: capital letters, digits and single underscores, starting with a letter (for example INSUFFICIENT_FUNDS)"}
	}
	return nil
}
