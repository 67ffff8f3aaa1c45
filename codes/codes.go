// Package codes defines the error codes an mcperr server reports to its
// clients, the Registry where an application adds its own, and the
// DefinitionError a server meets at start-up.
//
// A Code is an UPPER_SNAKE name such as NOT_FOUND, with a Category, a
// one-line description and retry advice: the built-in codes are always
// known, and NewRegistry adds an application's own at start-up. Codes travel
// to the client as strings inside a tool result, never as new JSON-RPC error
// numbers: the range -32020..-32099 is reserved for MCP itself. The package
// depends on the standard library alone, so a service layer can use it
// without depending on any MCP SDK.
package codes

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Code names one kind of failure, such as NOT_FOUND, sent to the client as
// a string. The zero Code means "unset"; mcperr sends it as InternalError.
type Code string

// Category groups codes by who is at fault, like HTTP's 4xx and 5xx. It
// decides the level a failure is logged at (error for server errors, below
// for the others) and whether it has a ref. It is sent as its text.
type Category string

const (
	// Client: the caller asked for something wrong, such as bad arguments.
	Client Category = "client"
	// Business: a rule of the application refused a valid request.
	Business Category = "business"
	// Server: the server failed. Its details stay on the server.
	Server Category = "server"
)

// Info describes a code: its category, description, retry advice and docs.
type Info struct {
	// Code is the code described.
	Code Code `json:"code"`
	// Category says who is at fault.
	Category Category `json:"category"`
	// Description is one line for documentation, never sent as a message.
	Description string `json:"description"`
	// Retryable reports whether the same request may succeed if tried again.
	Retryable bool `json:"retryable"`
	// RetryAfter, which needs Retryable, is how long to wait before a retry
	// when an error of the code does not say; zero gives no advice.
	RetryAfter time.Duration `json:"-"`
	// DocURL, when set, is an absolute http or https URL that documents the
	// code, sent in the error envelope for programs and people.
	DocURL string `json:"docUrl,omitempty"`
}

// Registry holds the codes a server knows: the built-in ones and those the
// application registered with NewRegistry. It is immutable, and safe for
// concurrent use. A nil or zero Registry knows the built-in codes only.
type Registry struct{ custom map[Code]Info }

// NewRegistry returns a Registry that knows the built-in codes and the
// given ones, or a *DefinitionError (InvalidCode or DuplicateCode) that says
// what to fix. Each code must be UPPER_SNAKE (capital letters, digits and
// single underscores, starting with a letter, at most 64 characters), have
// a category, and be new: neither built in nor given twice.
func NewRegistry(infos ...Info) (*Registry, error) {
	r := &Registry{custom: make(map[Code]Info, len(infos))}
	for _, in := range infos {
		if err := in.validate(); err != nil {
			return nil, err
		}
		if _, known := r.Lookup(in.Code); known {
			reason := "the code is built in; use it as it is or choose another name"
			if _, twice := r.custom[in.Code]; twice {
				reason = "the code is given twice; choose another name"
			}
			return nil, &DefinitionError{Mistake: DuplicateCode, Subject: string(in.Code), Reason: reason}
		}
		r.custom[in.Code] = in
	}
	return r, nil
}

// Lookup returns what the registry knows of c.
func (r *Registry) Lookup(c Code) (Info, bool) {
	if i := slices.IndexFunc(builtins[:], func(in Info) bool { return in.Code == c }); i >= 0 {
		return builtins[i], true
	}
	if r == nil {
		return Info{}, false
	}
	in, ok := r.custom[c]
	return in, ok
}

const maxLen = 64 // the longest name a Code may have

// validate returns why in cannot be registered, as a *DefinitionError, or nil.
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

// upperSnake reports whether s matches ^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$.
func upperSnake(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' || s[len(s)-1] == '_' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' && s[i-1] != '_') {
			return false
		}
	}
	return true
}

// docURL reports whether u is what the envelope's schema accepts: an
// absolute http or https URL with a host, and no character that any
// engine's \s matches (ECMAScript's counts U+FEFF), control character or
// invalid UTF-8.
func docURL(u string) bool {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok || scheme != "http" && scheme != "https" || rest == "" || rest[0] == '/' || rest[0] == '?' || rest[0] == '#' {
		return false
	}
	for _, r := range u {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '\ufeff' || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// Mistake names the kind of mistake in how a server is put together that a
// DefinitionError reports. It is never sent to a client, and is no Code.
type Mistake string

// The mistakes a DefinitionError reports.
const (
	// InvalidCode: an error code is malformed, lacks a category or is inconsistent.
	InvalidCode Mistake = "INVALID_CODE"
	// DuplicateCode: an error code is registered twice.
	DuplicateCode Mistake = "DUPLICATE_CODE"
	// InvalidToolName: a tool name does not follow the MCP naming rules.
	InvalidToolName Mistake = "INVALID_TOOL_NAME"
	// DuplicateTool: a tool is registered twice on one server.
	DuplicateTool Mistake = "DUPLICATE_TOOL"
	// NilValue: a server, handler, filter, observer or function is nil.
	NilValue Mistake = "NIL_VALUE"
	// InvalidSchema: a tool's input or output schema cannot be used.
	InvalidSchema Mistake = "INVALID_SCHEMA"
	// NotInstalled: a tool was added through an adapter before Install on its server.
	NotInstalled Mistake = "NOT_INSTALLED"
	// ConflictingConfiguration: a server got a second, different configuration.
	ConflictingConfiguration Mistake = "CONFLICTING_CONFIGURATION"
	// InvalidOption: an option has a value it does not accept, such as an unknown policy.
	InvalidOption Mistake = "INVALID_OPTION"
)

// DefinitionError reports a mistake in a server's definition, such as a
// malformed or duplicate code, a bad tool name or a nil handler. It is
// returned at start-up, never at run time; its message says what to fix.
type DefinitionError struct {
	// Mistake says which kind of mistake it is, such as DuplicateCode.
	Mistake Mistake
	// Subject is the name the mistake is about: the code or tool name.
	Subject string
	// Reason says what is wrong and how to fix it.
	Reason string
}

// Error returns "mcperr: MISTAKE: subject: reason", with the subject quoted
// and left out when empty.
func (e *DefinitionError) Error() string {
	if e.Subject == "" {
		return fmt.Sprintf("mcperr: %s: %s", e.Mistake, e.Reason)
	}
	return fmt.Sprintf("mcperr: %s: %q: %s", e.Mistake, e.Subject, e.Reason)
}
