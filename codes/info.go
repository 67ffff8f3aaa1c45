package codes

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Info describes a code: its category, a one-line description for
// documentation, whether a caller may retry the same request and how long
// it should wait first, and where the code is documented.
type Info struct {
	// Code is the code described.
	Code Code `json:"code"`
	// Category says who is at fault.
	Category Category `json:"category"`
	// Description is one line for documentation. It is never sent in place
	// of an error's own message.
	Description string `json:"description"`
	// Retryable reports whether the same request may succeed if tried again.
	Retryable bool `json:"retryable"`
	// RetryAfter is how long a caller should wait before it retries, for a
	// retryable code whose errors do not say it themselves; zero gives no
	// advice. It needs Retryable.
	RetryAfter time.Duration `json:"-"`
	// DocURL, when set, is an absolute http or https URL that documents the
	// code. It travels in the error envelope, for programs and people; the
	// model does not read it.
	DocURL string `json:"docUrl,omitempty"`
}

// validate checks that in can be registered: its code UPPER_SNAKE
// (capital letters, digits and single underscores, starting with a letter)
// and at most maxLen characters, its category one of the three, its retry
// advice consistent and its DocURL usable. It returns a *DefinitionError
// with mistake InvalidCode that says what to fix.
func (in Info) validate() error {
	var reason string
	switch c := in.Code; {
	case c == "":
		reason = "a code must not be empty"
	case len(c) > maxLen:
		reason = "a code must be at most " + strconv.Itoa(maxLen) + " characters long, this one has " + strconv.Itoa(len(c))
	case !upperSnake(string(c)):
		reason = "a code must be UPPER_SNAKE: capital letters, digits and single underscores, starting with a letter (for example INSUFFICIENT_FUNDS)"
	case in.Category != Client && in.Category != Business && in.Category != Server:
		reason = "a code needs a category: codes.Client, codes.Business or codes.Server"
	case in.RetryAfter < 0:
		reason = "RetryAfter is negative; give a delay of zero or more"
	case in.RetryAfter > 0 && !in.Retryable:
		reason = "RetryAfter is set but Retryable is false; set Retryable, or drop the delay"
	case in.DocURL != "" && !docURL(in.DocURL):
		reason = "DocURL must be an absolute http or https URL without spaces, such as https://example.com/errors#" + string(in.Code)
	default:
		return nil
	}
	return &DefinitionError{Mistake: InvalidCode, Subject: string(in.Code), Reason: reason}
}

// docURL reports whether u is an absolute http or https URL with a host
// and no white space (Unicode's or ECMAScript's), control character or
// invalid UTF-8: what the envelope's schema accepts.
func docURL(u string) bool {
	rest, ok := strings.CutPrefix(u, "https://")
	if !ok {
		rest, ok = strings.CutPrefix(u, "http://")
	}
	if !ok || rest == "" || rest[0] == '/' || rest[0] == '?' || rest[0] == '#' {
		return false // not http or https, or no host
	}
	for _, r := range u {
		// What the schema's \s refuses in any engine, ECMAScript's included
		// (which counts U+FEFF as white space), and control characters.
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '\ufeff' || r == utf8.RuneError {
			return false
		}
	}
	return true
}
