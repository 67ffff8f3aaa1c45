// Package toolname checks tool names against the MCP specification, for
// the adapters' registration helpers.
package toolname

import (
	"fmt"
	"strings"

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
	if i := strings.IndexFunc(name, Disallowed); i >= 0 {
		return &codes.DefinitionError{Mistake: codes.InvalidToolName, Subject: name,
			Reason: fmt.Sprintf("character %q at byte %d is not allowed; use only ASCII letters, digits, '_', '-' and '.'", rune(name[i]), i)}
	}
	return nil
}

// Disallowed reports whether a tool name may not hold r: anything but ASCII
// letters, digits, '_', '-' and '.'.
func Disallowed(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.')
}
