// Package toolname checks tool names against the MCP specification, for
// the adapters' registration helpers.
package toolname

import (
	"fmt"

	"github.com/mcperr/mcperr/codes"
)

const maxLen = 128 // the longest tool name the MCP specification allows

// Check returns nil for a valid MCP tool name (MCP specification 2025-11-25,
// "Tool names"): 1 to 128 ASCII letters, digits, underscores, hyphens and
// dots. Otherwise it returns a *codes.DefinitionError with mistake
// codes.InvalidToolName that says what to fix.
func Check(name string) error {
	if name == "" {
		return &codes.DefinitionError{Mistake: codes.InvalidToolName, Reason: "a tool name must not be empty"}
	}
	if len(name) > maxLen {
		return &codes.DefinitionError{Mistake: codes.InvalidToolName, Subject: name,
			Reason: fmt.Sprintf("a tool name must be at most %d characters long, this one has %d", maxLen, len(name))}
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return &codes.DefinitionError{Mistake: codes.InvalidToolName, Subject: name,
				Reason: fmt.Sprintf("character %q at byte %d is not allowed; use only ASCII letters, digits, '_', '-' and '.'", rune(c), i)}
		}
	}
	return nil
}
