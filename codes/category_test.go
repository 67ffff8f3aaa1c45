package codes_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcperr/mcperr/codes"
)

// TestCategoryText checks that a Category is its text, in Go and in JSON,
// as the envelope's schema names the categories.
func TestCategoryText(t *testing.T) {
	for c, want := range map[codes.Category]string{codes.Client: "client", codes.Business: "business", codes.Server: "server"} {
		if string(c) != want {
			t.Errorf("category %q, want %q", c, want)
		}
		b, err := json.Marshal(codes.Info{Code: "SOME_CODE", Category: c})
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil || m["category"] != want {
			t.Errorf("JSON of an Info of category %q: %s", c, b)
		}
		var back codes.Info
		if err := json.Unmarshal(b, &back); err != nil || back.Category != c {
			t.Errorf("JSON round trip of %q = %q, %v", c, back.Category, err)
		}
	}
}

// TestCategoryRequired checks that a registration needs one of the three
// categories: the zero Category, and any other text, are refused.
func TestCategoryRequired(t *testing.T) {
	for _, c := range []codes.Category{"", "user", "Client", "SERVER"} {
		_, err := codes.NewRegistry(codes.Info{Code: "SOME_CODE", Category: c})
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != codes.InvalidCode || de.Subject != "SOME_CODE" {
			t.Errorf("category %q: NewRegistry = %v, want an INVALID_CODE definition error", c, err)
		}
	}
}
