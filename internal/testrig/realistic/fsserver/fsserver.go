// Package fsserver is a small filesystem MCP server on
// github.com/mark3labs/mcp-go, written as public servers of its kind are:
// error results built by hand with the SDK's helpers (OS errors, absolute
// paths included), messages for the model returned as plain Go errors,
// loose-typed arguments read with the SDK's accessors, its own answer to an
// unknown argument, server.WithRecovery, and one input that makes a handler
// panic.
//
// It serves one root directory. New takes the hook where an adopter installs
// middleware, such as mcperr, right after the server is made; the server
// itself knows nothing of mcperr.
package fsserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// MaxDepth is the deepest list_directory goes.
const MaxDepth = 5

// Options configures a server at its constructor.
type Options struct {
	// Setup, when set, runs on the server right after server.NewMCPServer,
	// before any tool is added: the place to install middleware. New fails
	// with its error.
	Setup func(*server.MCPServer) error
	// Middleware, when set, wraps the handler of each tool as it is added,
	// given the tool's name.
	Middleware func(tool string, h server.ToolHandlerFunc) server.ToolHandlerFunc
}

// fs is the state of one server: the directory it serves.
type fs struct {
	root string
}

// New returns a server whose tools read and change the files under root.
func New(root string, opts Options) (*server.MCPServer, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("fsserver: root: %w", err)
	}
	s := server.NewMCPServer("fs", "0.3.1", server.WithToolCapabilities(false), server.WithRecovery())
	if opts.Setup != nil {
		if err := opts.Setup(s); err != nil {
			return nil, err
		}
	}
	f := &fs{root: abs}
	add := func(tool mcp.Tool, h server.ToolHandlerFunc) {
		if opts.Middleware != nil {
			h = opts.Middleware(tool.Name, h)
		}
		s.AddTool(tool, h)
	}
	add(mcp.NewTool("read_file",
		mcp.WithDescription("Read the complete contents of a file."),
		mcp.WithString("path", mcp.Required(), mcp.Description("Path of the file, relative to the root or absolute inside it")),
	), f.readFile)
	add(mcp.NewTool("list_directory",
		mcp.WithDescription("List the entries of a directory, down to depth levels."),
		mcp.WithString("path", mcp.Description("Directory to list; the root if omitted")),
		mcp.WithNumber("depth", mcp.Description("How many levels to list, 1 to 5"), mcp.DefaultNumber(1)),
	), f.listDirectory)
	add(mcp.NewTool("search_files",
		mcp.WithDescription("Find files whose name matches a glob pattern."),
		mcp.WithString("path", mcp.Description("Directory to search; the root if omitted")),
		mcp.WithString("pattern", mcp.Required(), mcp.Description("Glob matched against file names, such as *.go")),
		mcp.WithBoolean("follow_symlinks", mcp.Description("Include symbolic links")),
		mcp.WithArray("exclude", mcp.WithStringItems(), mcp.Description("Globs of names to leave out")),
	), f.searchFiles)
	add(mcp.NewTool("write_file",
		mcp.WithDescription("Create or overwrite a file."),
		mcp.WithString("path", mcp.Required()),
		mcp.WithString("content", mcp.Required()),
	), f.writeFile)
	add(mcp.NewTool("move_file",
		mcp.WithDescription("Move or rename a file."),
		mcp.WithString("source", mcp.Required()),
		mcp.WithString("destination", mcp.Required()),
	), f.moveFile)
	return s, nil
}

// resolve returns the absolute form of p, which must be inside the root.
func (f *fs) resolve(p string) (string, error) {
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(f.root, full)
	}
	full = filepath.Clean(full)
	rel, err := filepath.Rel(f.root, full)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("access denied - path outside allowed directories: %s not in %s", p, f.root)
	}
	return full, nil
}

func (f *fs) readFile(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	path, err := req.RequireString("path")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	full, err := f.resolve(path)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return mcp.NewToolResultErrorFromErr("failed to read file", err), nil
	}
	return mcp.NewToolResultText(string(data)), nil
}

func (f *fs) listDirectory(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	path := req.GetString("path", ".")
	depth := req.GetInt("depth", 1)
	if depth > MaxDepth {
		return nil, fmt.Errorf("depth must be at most %d, got %d", MaxDepth, depth)
	}
	full, err := f.resolve(path)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	// levels[i] holds the entries i+1 levels down, relative to full.
	levels := make([][]string, depth)
	entries, err := os.ReadDir(full)
	if err != nil {
		return mcp.NewToolResultErrorFromErr("failed to list directory", err), nil
	}
	for _, e := range entries {
		levels[0] = append(levels[0], entryLine(e.Name(), e.IsDir()))
	}
	for i := 1; i < depth; i++ {
		for _, parent := range levels[i-1] {
			dir, ok := strings.CutPrefix(parent, "[DIR] ")
			if !ok {
				continue
			}
			children, err := os.ReadDir(filepath.Join(full, dir))
			if err != nil {
				return mcp.NewToolResultErrorFromErr("failed to list directory", err), nil
			}
			for _, c := range children {
				levels[i] = append(levels[i], entryLine(filepath.Join(dir, c.Name()), c.IsDir()))
			}
		}
	}
	var lines []string
	for _, l := range levels {
		lines = append(lines, l...)
	}
	sort.Strings(lines)
	return mcp.NewToolResultText(strings.Join(lines, "\n")), nil
}

func entryLine(name string, dir bool) string {
	if dir {
		return "[DIR] " + name
	}
	return "[FILE] " + name
}

func (f *fs) searchFiles(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	pattern := req.GetString("pattern", "")
	if pattern == "" {
		return nil, errors.New("pattern is required")
	}
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, fmt.Errorf("invalid pattern %q: %w", pattern, err)
	}
	followSymlinks := req.GetBool("follow_symlinks", false)
	// exclude may be one glob or a list of them.
	excludes := req.GetStringSlice("exclude", nil)
	if one, ok := req.GetArguments()["exclude"].(string); ok {
		excludes = []string{one}
	}
	full, err := f.resolve(req.GetString("path", "."))
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	var matches []string
	err = filepath.WalkDir(full, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || (d.Type()&os.ModeSymlink != 0 && !followSymlinks) {
			return nil
		}
		for _, ex := range excludes {
			if ok, _ := filepath.Match(ex, d.Name()); ok {
				return nil
			}
		}
		if ok, _ := filepath.Match(pattern, d.Name()); ok {
			rel, _ := filepath.Rel(full, p)
			matches = append(matches, rel)
		}
		return nil
	})
	if err != nil {
		return mcp.NewToolResultErrorFromErr("failed to search files", err), nil
	}
	if len(matches) == 0 {
		return mcp.NewToolResultText("No matches found"), nil
	}
	return mcp.NewToolResultText(strings.Join(matches, "\n")), nil
}

// writeArgs are the arguments write_file knows.
var writeArgs = []string{"content", "path"}

func (f *fs) writeFile(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := req.GetArguments()
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(writeArgs, k) {
			return nil, fmt.Errorf("unknown argument %q; valid arguments: %s", k, strings.Join(writeArgs, ", "))
		}
	}
	path, err := req.RequireString("path")
	if err != nil {
		return nil, err
	}
	content, err := req.RequireString("content")
	if err != nil {
		return nil, err
	}
	full, err := f.resolve(path)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		return mcp.NewToolResultErrorFromErr("failed to write file", err), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("Successfully wrote %d bytes to %s", len(content), path)), nil
}

func (f *fs) moveFile(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	src, err := req.RequireString("source")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	dst, err := req.RequireString("destination")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	fullSrc, err := f.resolve(src)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	fullDst, err := f.resolve(dst)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if _, err := os.Lstat(fullDst); err == nil {
		return mcp.NewToolResultError(fmt.Sprintf("destination %s already exists", dst)), nil
	}
	if err := os.Rename(fullSrc, fullDst); err != nil {
		return nil, fmt.Errorf("move %s to %s: %w", src, dst, err)
	}
	return mcp.NewToolResultText(fmt.Sprintf("Successfully moved %s to %s", src, dst)), nil
}
