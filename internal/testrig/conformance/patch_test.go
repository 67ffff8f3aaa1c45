package main

import (
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

const gosdkServer = `package main

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	// The server.
	srv := mcp.NewServer(&mcp.Implementation{Name: "x", Version: "1"}, nil) // trailing
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, echo)
	srv.AddTool(&mcp.Tool{Name: "raw", Description: "d"}, nil)
	_ = http.ListenAndServe(":0", nil)
}
`

const mcpgoServer = `package main

import (
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

func main() {
	s := mcpserver.NewMCPServer("x", "1",
		mcpserver.WithToolCapabilities(true),
	)
	s.AddTool(mcp.NewTool("hello", mcp.WithDescription("d")), nil)
}
`

func TestPatchInsertsAfterConstruction(t *testing.T) {
	for _, tc := range []struct {
		sdk, src, call, after string
		tools                 []string
	}{
		{"gosdk", gosdkServer, "mcperrInstall(srv)", "// trailing", []string{"echo", "raw"}},
		{"mcpgo", mcpgoServer, "mcperrInstall(s)", ")", []string{"hello"}},
	} {
		t.Run(tc.sdk, func(t *testing.T) {
			out, tools, err := patch(sdks[tc.sdk], map[string][]byte{"main.go": []byte(tc.src)})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tools, tc.tools) {
				t.Errorf("tools = %q, want %q", tools, tc.tools)
			}
			main := string(out["main.go"])
			if strings.Count(main, "mcperrInstall") != 1 {
				t.Fatalf("want one call to mcperrInstall:\n%s", main)
			}
			lines := strings.Split(main, "\n")
			i := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == tc.call })
			if i < 1 || !strings.HasSuffix(strings.TrimSpace(lines[i-1]), tc.after) {
				t.Errorf("%s is not right after the construction:\n%s", tc.call, main)
			}
			if strings.Contains(tc.src, "// trailing") && !strings.Contains(main, "nil) // trailing\n") {
				t.Errorf("the patch lost a comment:\n%s", main)
			}
			gen := string(out[installName])
			if _, err := parser.ParseFile(token.NewFileSet(), installName, gen, 0); err != nil {
				t.Fatalf("%s does not parse: %v\n%s", installName, err, gen)
			}
			if want := "WithRetries(3, " + `"` + strings.Join(tc.tools, `", "`) + `"))`; !strings.Contains(gen, want) {
				t.Errorf("%s lacks %s:\n%s", installName, want, gen)
			}
		})
	}
}

func TestPatchRefuses(t *testing.T) {
	two := strings.Replace(gosdkServer, "	_ = http", "	other := mcp.NewServer(nil, nil)\n	_ = other\n	_ = http", 1)
	for name, src := range map[string]string{
		"no construction":   strings.Replace(gosdkServer, "mcp.NewServer", "newServer", 1),
		"two constructions": two,
		"name taken":        gosdkServer + "\nvar mcperrVariant = 1\n",
		"no tools":          strings.ReplaceAll(gosdkServer, "Name: \"", "Title: \""),
	} {
		if _, _, err := patch(sdks["gosdk"], map[string][]byte{"main.go": []byte(src)}); err == nil {
			t.Errorf("%s: patch did not refuse", name)
		}
	}
}
