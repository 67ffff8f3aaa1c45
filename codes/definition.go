package codes

import "fmt"

// Mistake names the kind of mistake a DefinitionError reports. Mistakes
// describe how a server is put together, found at start-up; they are never
// sent to a client, and are no Code.
type Mistake string

// The mistakes a DefinitionError reports.
const (
	// InvalidCode: an error code is malformed, lacks a category, or its
	// registration is inconsistent.
	InvalidCode Mistake = "INVALID_CODE"
	// DuplicateCode: an error code is registered twice.
	DuplicateCode Mistake = "DUPLICATE_CODE"
	// InvalidToolName: a tool name does not follow the MCP naming rules.
	InvalidToolName Mistake = "INVALID_TOOL_NAME"
	// DuplicateTool: a tool is registered twice on one server.
	DuplicateTool Mistake = "DUPLICATE_TOOL"
	// NilValue: a server, handler, filter, observer or function was nil
	// where one is needed.
	NilValue Mistake = "NIL_VALUE"
	// InvalidSchema: a tool's input or output schema cannot be used.
	InvalidSchema Mistake = "INVALID_SCHEMA"
	// NotInstalled: a tool was added through an adapter to a server where
	// the adapter's Install was not called first.
	NotInstalled Mistake = "NOT_INSTALLED"
	// ConflictingConfiguration: a server was given a second, different
	// mcperr configuration.
	ConflictingConfiguration Mistake = "CONFLICTING_CONFIGURATION"
	// InvalidOption: an option was given a value it does not accept, such
	// as a policy that is none of its constants.
	InvalidOption Mistake = "INVALID_OPTION"
)

// DefinitionError reports a mistake in a server's definition: a malformed
// or duplicate code, a bad tool name, a nil handler, a tool added before
// Install. It is returned at start-up, when the mistake is made, never at
// run time, and its message says what to fix.
type DefinitionError struct {
	// Mistake says which kind of mistake it is, such as DuplicateCode.
	Mistake Mistake
	// Subject is the name the mistake is about: the code or tool name.
	Subject string
	// Reason says what is wrong and how to fix it.
	Reason string
}

// Error returns "mcperr: MISTAKE: subject: reason".
func (e *DefinitionError) Error() string {
	if e.Subject == "" {
		return fmt.Sprintf("mcperr: %s: %s", e.Mistake, e.Reason)
	}
	return fmt.Sprintf("mcperr: %s: %q: %s", e.Mistake, e.Subject, e.Reason)
}
