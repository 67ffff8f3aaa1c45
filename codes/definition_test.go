package codes_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mcperr/mcperr/codes"
)

func TestDefinitionErrorText(t *testing.T) {
	tests := []struct {
		err  *codes.DefinitionError
		want string
	}{
		{&codes.DefinitionError{Mistake: codes.InvalidCode, Reason: "a code must not be empty"},
			"mcperr: INVALID_CODE: a code must not be empty"},
		{&codes.DefinitionError{Mistake: codes.DuplicateTool, Subject: "get_order", Reason: "the tool is added twice"},
			`mcperr: DUPLICATE_TOOL: "get_order": the tool is added twice`},
		{&codes.DefinitionError{Mistake: codes.InvalidToolName, Subject: "bad\nname", Reason: "r"},
			`mcperr: INVALID_TOOL_NAME: "bad\nname": r`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
		var de *codes.DefinitionError
		if !errors.As(fmt.Errorf("start-up: %w", tt.err), &de) || de != tt.err {
			t.Errorf("errors.As did not find %v through wrapping", tt.err)
		}
	}
}

// TestMistakes pins the text of every Mistake (the map literal would not
// compile if two shared a value), and checks that none is a code.
func TestMistakes(t *testing.T) {
	want := map[codes.Mistake]string{
		codes.InvalidCode:              "INVALID_CODE",
		codes.DuplicateCode:            "DUPLICATE_CODE",
		codes.InvalidToolName:          "INVALID_TOOL_NAME",
		codes.DuplicateTool:            "DUPLICATE_TOOL",
		codes.NilValue:                 "NIL_VALUE",
		codes.InvalidSchema:            "INVALID_SCHEMA",
		codes.NotInstalled:             "NOT_INSTALLED",
		codes.ConflictingConfiguration: "CONFLICTING_CONFIGURATION",
		codes.InvalidOption:            "INVALID_OPTION",
	}
	for m, s := range want {
		if string(m) != s {
			t.Errorf("mistake %q, want %q", m, s)
		}
		if _, ok := (*codes.Registry)(nil).Lookup(codes.Code(m)); ok {
			t.Errorf("mistake %s is also a built-in code", m)
		}
	}
}
