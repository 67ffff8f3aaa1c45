package codes

import "fmt"

// Codes of definition errors. They describe a mistake in how a server is put
// together, found at start-up; they are never sent to a client.
const (
	// InvalidCode: an error code is malformed or lacks a category.
	InvalidCode Code = "INVALID_CODE"
	// DuplicateCode: an error code is registered twice.
	DuplicateCode Code = "DUPLICATE_CODE"
	// InvalidToolName: a tool name does not follow the MCP naming rules.
	InvalidToolName Code = "INVALID_TOOL_NAME"
	// DuplicateTool: a tool is registered twice on one server.
	DuplicateTool Code = "DUPLICATE_TOOL"
	// NilHandler: a tool was registered without a handler.
	NilHandler Code = "NIL_HANDLER"
	// NilFilter: a nil exception filter was registered.
	NilFilter Code = "NIL_FILTER"
	// InvalidSchema: a tool's input schema is missing, is not a JSON object
	// schema, or cannot be compiled.
	InvalidSchema Code = "INVALID_SCHEMA"
	// InvalidOption: an option was given a value it cannot use, or was
	// given where it has no meaning.
	InvalidOption Code = "INVALID_OPTION"
	// ConflictingConfiguration: a server was given a second, different
	// mcperr configuration.
	ConflictingConfiguration Code = "CONFLICTING_CONFIGURATION"
)

// DefinitionError reports a mistake in a server's definition: a malformed or
// duplicate code, a bad tool name, a nil handler. It is returned at start-up,
// when the mistake is made, never at run time, and its message says what to
// fix. The package toolerr re-exports it as toolerr.DefinitionError.
type DefinitionError struct {
	// Code says which kind of mistake it is, such as DuplicateCode.
	Code Code
	// Subject is the name the mistake is about: the code or tool name.
	Subject string
	// Reason says what is wrong and how to fix it.
	Reason string
}

// Error returns "mcperr: CODE: subject: reason".
func (e *DefinitionError) Error() string {
	if e.Subject == "" {
		return fmt.Sprintf("mcperr: %s: %s", e.Code, e.Reason)
	}
	return fmt.Sprintf("mcperr: %s: %q: %s", e.Code, e.Subject, e.Reason)
}

// ErrorCode returns the definition error's code.
func (e *DefinitionError) ErrorCode() Code { return e.Code }
