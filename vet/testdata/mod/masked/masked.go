// Package masked holds positive and negative cases of mcperrmasked.
package masked

import (
	"context"
	"errors"
	"fmt"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var store interface {
	Delete(context.Context, string) error
}

// --- messages for the model: reported and fixed ---

func deleteFile(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if !req.GetBool("recursive", false) {
		return nil, errors.New("Use recursive=true to delete directories.") // want `a message for the model returned as a plain error`
	}
	return mcpgo.NewToolResultText("deleted"), nil
}

// A message of constants joined with +.
func addMessage(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if !req.GetBool("enabled", false) {
		return nil, errors.New( // want `a message for the model returned as a plain error`
			"the add_message tool is disabled to guard against spam. " +
				"To enable it, set ADD_MESSAGE_TOOL=true")
	}
	return mcpgo.NewToolResultText("sent"), nil
}

func findDashboard(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	uid, name := req.GetString("uid", ""), req.GetString("name", "")
	if uid == "" && name == "" {
		return nil, fmt.Errorf("either uid or name must be provided") // want `a message for the model returned as a plain error`
	}
	if len(name) > 64 {
		return nil, fmt.Errorf("name %q is longer than %d characters", name, 64) // want `a message for the model returned as a plain error`
	}
	return mcpgo.NewToolResultText(uid + name), nil
}

type traceIn struct {
	ServiceName string `json:"service_name"`
}

func searchTraces(ctx context.Context, req *mcp.CallToolRequest, in traceIn) (*mcp.CallToolResult, any, error) {
	if in.ServiceName == "" {
		return nil, nil, errors.New("service_name is required") // want `a message for the model returned as a plain error`
	}
	return &mcp.CallToolResult{}, nil, nil
}

// --- reported, with no mechanical fix ---

func kept(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	err := errors.New("the path must be absolute") // want `a message for the model returned as a plain error`
	return nil, err
}

// --- not reported ---

func wrapped(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if err := store.Delete(ctx, "x"); err != nil {
		return nil, fmt.Errorf("delete: %w", err) // an error's text: masked, as it should be
	}
	return nil, nil
}

func formatted(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if err := store.Delete(ctx, "x"); err != nil {
		return nil, fmt.Errorf("delete failed: %v", err) // an error's text
	}
	msg := "x"
	if err := store.Delete(ctx, msg); err != nil {
		text := err.Error()
		return nil, fmt.Errorf("delete failed: %s", text) // an error's text, through a variable
	}
	return nil, nil
}

// Not a handler: the caller decides.
func check(name string) error {
	if name == "" {
		return errors.New("name is required")
	}
	return nil
}

// --- a server's own tool framework: the work functions it is given ---

type findArgs struct {
	Name   string `json:"name"`
	Format string `json:"format"`
}

type found struct{ Body string }

// register stands for a server's framework, which turns work into a
// handler that returns work's errors.
func register[A, R any](name string, work func(context.Context, A) (R, error)) string { return name } // want register:"argValue"

var _ = register("find", find)

var fetch interface {
	Get(context.Context, string) (int, string)
}

func find(ctx context.Context, args findArgs) (*found, error) {
	if args.Name == "" {
		return nil, errors.New("name is required") // want `a message for the model returned as a plain error`
	}
	if args.Format != "full" && args.Format != "compact" {
		return nil, fmt.Errorf("invalid format %q: must be 'full' or 'compact'", args.Format) // want `a message for the model returned as a plain error`
	}
	status, body := fetch.Get(ctx, args.Name)
	if status != 200 {
		return nil, fmt.Errorf("find: unexpected status %d: %s", status, body) // what the upstream said: not the tool's own words
	}
	return &found{Body: body}, nil
}

// Not given to the framework: not reported.
func helper(ctx context.Context, args findArgs) (*found, error) {
	return nil, errors.New("the helper failed")
}

// --- functions whose errors a tool returns, wrapped or not ---

type silenceArgs struct {
	Operation string `json:"operation"`
	ID        string `json:"id"`
}

func (a silenceArgs) validate() error {
	if a.Operation == "get" && a.ID == "" {
		return errors.New("id is required for 'get' operation") // want `a message for the model returned as a plain error`
	}
	if a.Operation == "list" {
		return requireID(a.ID, "list")
	}
	if a.Operation != "get" && a.Operation != "list" {
		return fmt.Errorf("unknown operation %q, must be one of: get, list", a.Operation) // want `a message for the model returned as a plain error`
	}
	return nil
}

// requireID is given the tool's arguments and constants by every call
// that reaches it.
func requireID(id, operation string) error {
	if id == "" {
		return fmt.Errorf("id is required for '%s' operation", operation) // want `a message for the model returned as a plain error`
	}
	return nil
}

// upstreamStatus is reached too, but its words hold what the server read:
// not reported.
func upstreamStatus(code int, body string) error {
	return fmt.Errorf("unexpected status %d: %s", code, body)
}

var _ = register("manage_silences", manageSilences)

func manageSilences(ctx context.Context, args silenceArgs) (*found, error) {
	if err := args.validate(); err != nil {
		return nil, fmt.Errorf("invalid arguments: %w", err)
	}
	status, body := fetch.Get(ctx, args.ID)
	if status != 200 {
		return nil, upstreamStatus(status, body)
	}
	return &found{Body: body}, nil
}

// A handler with a deferred call returns through its result slot.
func withDefer(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	defer func() {}()
	if req.GetString("query", "") == "" {
		return nil, fmt.Errorf("query is required") // want `a message for the model returned as a plain error`
	}
	return mcpgo.NewToolResultText("ok"), nil
}

// optional is a generic accessor of the tool's arguments, as GitHub's
// OptionalParam[T] is; its instances share its body.
func optional[T any](args map[string]any, name string) (T, error) {
	var zero T
	v, ok := args[name].(T)
	if !ok && args[name] != nil {
		return zero, fmt.Errorf("parameter %s is not of type %T, is %T", name, zero, args[name]) // want `a message for the model returned as a plain error`
	}
	return v, nil
}

func withGeneric(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	owner, err := optional[string](req.GetArguments(), "owner")
	if err != nil {
		return nil, err
	}
	return mcpgo.NewToolResultText(owner), nil
}
