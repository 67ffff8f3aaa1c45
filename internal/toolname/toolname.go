// Package toolname checks tool names against the MCP specification, for
// the adapters' registration helpers.
package toolname

import (
	"fmt"

	"github.com/mcperr/mcperr/codes"
)

// maxLen is the longest tool name the MCP specification allows.
const maxLen = 128

// Check reports whether name is a valid MCP tool name: 1 to 128
// characters, each an ASCII letter, digit, underscore, hyphen or dot (MCP
// specification 2025-11-25, "Tool names"). It returns a
// *codes.DefinitionError with mistake codes.InvalidToolName that says what
// to fix.
func Check(name string) error {
	if name == "" {
		return &codes.DefinitionError{Mistake: codes.InvalidToolName, Reason: "a tool name must not be empty"}
	}
	if len(name) > maxLen {
		return &codes.DefinitionError{Mistake: codes.InvalidToolName, Subject: name,
			Reason: fmt.Sprintf("a tool name must be at most %d characters long, this one has %d", maxLen, len(name))}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return &codes.DefinitionError{Mistake: codes.InvalidToolName, Subject: name,
				Reason: fmt.Sprintf("character %q at byte %d is not allowed; use only ASCII letters, digits, '_', '-' and '.'", rune(c), i)}
		}
	}
	return nil
}
