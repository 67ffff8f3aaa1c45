package fsserver_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/realistic/fsserver"
	"github.com/mcperr/mcperr/internal/testrig/realistic/suite"
)

// seed makes the tree every configuration starts from.
func seed(t *testing.T, root string) {
	t.Helper()
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"notes.txt":           "hello\n",
		"docs/readme.md":      "# Readme\n",
		"docs/guide/intro.md": "# Intro\n",
		"logs/app.log":        "started\n",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("notes.txt", filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
}

// cases is the table of calls; they run in order, on the tree seed makes.
var cases = []suite.Case{
	// read_file
	{Name: "read_file", Tool: "read_file", Args: map[string]any{"path": "notes.txt"},
		Bare: ok("hello\n")},
	{Name: "read_file_absolute", Tool: "read_file", Args: map[string]any{"path": "${root}/docs/readme.md"},
		Bare: ok("# Readme\n")},
	{Name: "read_file_no_path", Tool: "read_file", Args: map[string]any{},
		Bare: handBuilt("required argument \"path\" not found"), Failure: suite.HandBuilt},
	{Name: "read_file_outside_root", Tool: "read_file", Args: map[string]any{"path": "../secret.txt"},
		Bare:    handBuilt("access denied - path outside allowed directories: ../secret.txt not in ${root}"),
		Failure: suite.HandBuilt, Secrets: []string{"${root}"}},
	{Name: "read_file_not_found", Tool: "read_file", Args: map[string]any{"path": "missing.txt"},
		Bare:    handBuilt("failed to read file: open ${root}/missing.txt: no such file or directory"),
		Failure: suite.HandBuilt, Secrets: []string{"${root}"}},

	// list_directory, with depth as a number or a numeric string
	{Name: "list_directory", Tool: "list_directory", Args: map[string]any{"path": "docs"},
		Bare: ok("[DIR] guide\n[FILE] readme.md")},
	{Name: "list_directory_depth_number", Tool: "list_directory", Args: map[string]any{"depth": 2},
		Bare: ok("[DIR] docs\n[DIR] docs/guide\n[DIR] logs\n[FILE] docs/readme.md\n[FILE] link.txt\n[FILE] logs/app.log\n[FILE] notes.txt")},
	{Name: "list_directory_depth_string", Tool: "list_directory", Args: map[string]any{"depth": "2"},
		Bare: ok("[DIR] docs\n[DIR] docs/guide\n[DIR] logs\n[FILE] docs/readme.md\n[FILE] link.txt\n[FILE] logs/app.log\n[FILE] notes.txt")},
	{Name: "list_directory_too_deep", Tool: "list_directory", Args: map[string]any{"depth": 9},
		Bare:    rpc(-32603, "depth must be at most 5, got 9"),
		Failure: suite.Returns, Enforced: codes.InternalError, Logged: "depth must be at most 5, got 9"},
	{Name: "list_directory_too_deep_string", Tool: "list_directory", Args: map[string]any{"depth": "9"},
		Bare:    rpc(-32603, "depth must be at most 5, got 9"),
		Failure: suite.Returns, Enforced: codes.ValidationError, Fields: []string{"depth"}},
	{Name: "list_directory_not_found", Tool: "list_directory", Args: map[string]any{"path": "nope"},
		Bare:    handBuilt("failed to list directory: open ${root}/nope: no such file or directory"),
		Failure: suite.HandBuilt, Secrets: []string{"${root}"}},
	{Name: "list_directory_depth_zero_panics", Tool: "list_directory", Args: map[string]any{"depth": 0},
		Bare:    rpc(-32603, "panic recovered in list_directory tool handler: runtime error: index out of range [0] with length 0"),
		Failure: suite.Panics, Enforced: codes.InternalError, Secrets: []string{"index out of range"},
		Logged: "index out of range [0] with length 0"},

	// search_files, with follow_symlinks as a bool or a string and exclude
	// as a list or one string
	{Name: "search_files", Tool: "search_files", Args: map[string]any{"pattern": "*.md", "follow_symlinks": false, "exclude": []any{"intro.md"}},
		Bare: ok("docs/readme.md")},
	{Name: "search_files_loose", Tool: "search_files", Args: map[string]any{"pattern": "*.md", "follow_symlinks": "false", "exclude": "intro.md"},
		Bare: ok("docs/readme.md")},
	{Name: "search_files_follow_symlinks_string", Tool: "search_files", Args: map[string]any{"pattern": "*.txt", "follow_symlinks": "true"},
		Bare: ok("link.txt\nnotes.txt")},
	{Name: "search_files_no_match", Tool: "search_files", Args: map[string]any{"pattern": "*.go", "path": "docs"},
		Bare: ok("No matches found")},
	{Name: "search_files_empty_pattern", Tool: "search_files", Args: map[string]any{"pattern": ""},
		Bare:    rpc(-32603, "pattern is required"),
		Failure: suite.Returns, Enforced: codes.InternalError, Logged: "pattern is required"},
	{Name: "search_files_no_pattern", Tool: "search_files", Args: map[string]any{"follow_symlinks": true},
		Bare:    rpc(-32603, "pattern is required"),
		Failure: suite.Returns, Enforced: codes.ValidationError, Fields: []string{"pattern"}},
	{Name: "search_files_bad_pattern", Tool: "search_files", Args: map[string]any{"pattern": "[a-"},
		Bare:    rpc(-32603, "invalid pattern \"[a-\": syntax error in pattern"),
		Failure: suite.Returns, Enforced: codes.InternalError, Logged: "syntax error in pattern"},

	// write_file, with its own answer to an unknown argument
	{Name: "write_file", Tool: "write_file", Args: map[string]any{"path": "draft.txt", "content": "draft"},
		Bare: ok("Successfully wrote 5 bytes to draft.txt")},
	{Name: "write_file_unknown_argument", Tool: "write_file", Args: map[string]any{"path": "draft.txt", "content": "x", "optionl": true},
		Bare:    rpc(-32603, "unknown argument \"optionl\"; valid arguments: content, path"),
		Failure: suite.Returns, Enforced: codes.InternalError, Logged: `unknown argument "optionl"`},
	{Name: "write_file_no_content", Tool: "write_file", Args: map[string]any{"path": "draft.txt"},
		Bare:    rpc(-32603, "required argument \"content\" not found"),
		Failure: suite.Returns, Enforced: codes.ValidationError, Fields: []string{"content"}},
	{Name: "write_file_no_parent", Tool: "write_file", Args: map[string]any{"path": "nodir/draft.txt", "content": "x"},
		Bare:    handBuilt("failed to write file: open ${root}/nodir/draft.txt: no such file or directory"),
		Failure: suite.HandBuilt, Secrets: []string{"${root}"}},

	// move_file
	{Name: "move_file", Tool: "move_file", Args: map[string]any{"source": "draft.txt", "destination": "final.txt"},
		Bare: ok("Successfully moved draft.txt to final.txt")},
	{Name: "move_file_destination_exists", Tool: "move_file", Args: map[string]any{"source": "notes.txt", "destination": "final.txt"},
		Bare: handBuilt("destination final.txt already exists"), Failure: suite.HandBuilt},
	{Name: "move_file_no_destination", Tool: "move_file", Args: map[string]any{"source": "notes.txt"},
		Bare: handBuilt("required argument \"destination\" not found"), Failure: suite.HandBuilt},
	{Name: "move_file_missing_source", Tool: "move_file", Args: map[string]any{"source": "gone.txt", "destination": "elsewhere.txt"},
		Bare:    rpc(-32603, "move gone.txt to elsewhere.txt: rename ${root}/gone.txt ${root}/elsewhere.txt: no such file or directory"),
		Failure: suite.Returns, Enforced: codes.InternalError, Secrets: []string{"${root}"},
		Logged: "rename ${root}/gone.txt ${root}/elsewhere.txt: no such file or directory"},
}

// TestServer runs the table on the bare server and with mcperr installed.
func TestServer(t *testing.T) {
	root := filepath.Join(t.TempDir(), "srv")
	start := func(t *testing.T, cfg suite.Config, install bool, logger *slog.Logger) suite.Client {
		seed(t, root)
		var opts fsserver.Options
		if install {
			p, err := filter.New(cfg.Pipeline(logger)...)
			if err != nil {
				t.Fatal(err)
			}
			opts.Setup = func(s *server.MCPServer) error { return mcpgo.Install(s, p) }
			opts.Middleware = func(tool string, h server.ToolHandlerFunc) server.ToolHandlerFunc {
				if _, ok := cfg.Tools[tool]; ok {
					return mcpgo.Wrap(h)
				}
				return h
			}
		}
		s, err := fsserver.New(root, opts)
		if err != nil {
			t.Fatal(err)
		}
		return suite.ConnectMCPGo(t, s)
	}
	suite.Run(t, cases, map[string]string{"root": root}, start,
		append(suite.Modes(), suite.PerTool("list_directory")...)...)
}

// ok is the JSON of the result a tool answers text with, as mcp-go sends
// it on the latest protocol.
func ok(text string) string {
	return `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fs","version":"0.3.1"}},"content":[{"type":"text","text":` + suite.JSONString(text) + `}],"resultType":"complete"}`
}

// handBuilt is the JSON of the error result a handler builds with text.
func handBuilt(text string) string {
	return `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fs","version":"0.3.1"}},"content":[{"type":"text","text":` + suite.JSONString(text) + `}],"isError":true,"resultType":"complete"}`
}

// rpc is the JSON of a JSON-RPC error.
func rpc(code int64, message string) string { return suite.RPC(code, message) }
