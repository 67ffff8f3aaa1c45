package toolname

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
)

func TestCheck(t *testing.T) {
	for _, name := range []string{"a", "get_order", "orders.get", "get-order-2", "A_B.c-d", strings.Repeat("x", 128)} {
		if err := Check(name); err != nil {
			t.Errorf("Check(%q) = %v", name, err)
		}
	}
	bad := []struct {
		name, says string
	}{
		{"", "must not be empty"},
		{strings.Repeat("x", 129), "at most 128 characters long, this one has 129"},
		{"get order", `' ' at byte 3`},
		{"orders/get", `'/' at byte 6`},
		{"get:order", `':' at byte 3`},
		{"café", "at byte 3"},
		{"tool\n", `'\n' at byte 4`},
		{"a@b", `'@' at byte 1`},
	}
	for _, b := range bad {
		err := Check(b.name)
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != codes.InvalidToolName || !strings.Contains(de.Reason, b.says) {
			t.Errorf("Check(%q) = %v, want an INVALID_TOOL_NAME definition error saying %q", b.name, err, b.says)
			continue
		}
		if b.name != "" && de.Subject != b.name {
			t.Errorf("Check(%q): subject %q", b.name, de.Subject)
		}
	}
}
