package codes

import (
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

// validate checks that in can be registered.
func (in Info) validate() error {
	if err := in.Code.validate(); err != nil {
		return err
	}
	switch in.Category {
	case Client, Business, Server:
	default:
		return &DefinitionError{Mistake: InvalidCode, Subject: string(in.Code),
			Reason: "a code needs a category: codes.Client, codes.Business or codes.Server"}
	}
	switch {
	case in.RetryAfter < 0:
		return &DefinitionError{Mistake: InvalidCode, Subject: string(in.Code),
			Reason: "RetryAfter is negative; give a delay of zero or more"}
	case in.RetryAfter > 0 && !in.Retryable:
		return &DefinitionError{Mistake: InvalidCode, Subject: string(in.Code),
			Reason: "RetryAfter is set but Retryable is false; set Retryable, or drop the delay"}
	}
	if in.DocURL != "" && !docURL(in.DocURL) {
		return &DefinitionError{Mistake: InvalidCode, Subject: string(in.Code),
			Reason: "DocURL must be an absolute http or https URL without spaces, such as https://example.com/errors#" + string(in.Code)}
	}
	return nil
}

// docURL reports whether u is an absolute http or https URL with a host
// and no white space (Unicode's or ECMAScript's), control character or
// invalid UTF-8: what the envelope's schema accepts.
func docURL(u string) bool {
	rest, ok := strings.CutPrefix(u, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(u, "http://"); !ok {
			return false
		}
	}
	if rest == "" || rest[0] == '/' || rest[0] == '?' || rest[0] == '#' {
		return false // no host
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
