package toolerr

import (
	"fmt"

	"github.com/mcperr/mcperr/codes"
)

// DefinitionError reports a mistake in a server's definition, found at
// start-up: a bad tool name or input schema, a duplicate tool or code, a nil
// handler or filter. Its Code is one of codes.InvalidToolName,
// codes.DuplicateTool, codes.InvalidCode, codes.DuplicateCode,
// codes.NilHandler, codes.NilFilter, codes.InvalidSchema or
// codes.InvalidOption, and its message says what to fix. It is the same type
// as codes.DefinitionError, so errors.As finds both with one target.
type DefinitionError = codes.DefinitionError

// MaxToolNameLen is the longest tool name the MCP specification allows.
const MaxToolNameLen = 128

// CheckToolName reports whether name is a valid MCP tool name: 1 to 128
// characters, each an ASCII letter, digit, underscore, hyphen or dot
// (MCP specification 2025-11-25, "Tool names"). It returns a
// *DefinitionError with code codes.InvalidToolName that says what to fix.
func CheckToolName(name string) error {
	if name == "" {
		return &DefinitionError{Code: codes.InvalidToolName, Reason: "a tool name must not be empty"}
	}
	if len(name) > MaxToolNameLen {
		return &DefinitionError{Code: codes.InvalidToolName, Subject: name,
			Reason: fmt.Sprintf("a tool name must be at most %d characters long, this one has %d", MaxToolNameLen, len(name))}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return &DefinitionError{Code: codes.InvalidToolName, Subject: name,
				Reason: fmt.Sprintf("character %q at byte %d is not allowed; use only ASCII letters, digits, '_', '-' and '.'", rune(c), i)}
		}
	}
	return nil
}
