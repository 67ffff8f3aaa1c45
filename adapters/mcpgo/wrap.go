package mcpgo

import (
	"context"
	"log/slog"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// Wrap returns a tool handler that runs h, for a tool that something else
// registers:
//
//	s.AddTool(tool, mcpgo.Wrap(h))
//
// The middleware of Install handles the failures of every tool however it
// was added, and a tool's own options are declared at start-up, with
// filter.ForTool. Where h is one of mcp-go's typed helpers
// (mcp.NewTypedToolHandler, mcp.NewStructuredToolHandler), the wrapped
// handler returns the errors they turn into error results as the errors
// they are, as the middleware finds them for a helper registered as it is
// (see Install). On a server without mcperr, its first call writes one
// ERROR record to slog.Default saying that mcperr is not installed and what
// to do, and h's failures reach the SDK as they came.
//
// Like regexp.MustCompile, Wrap panics with a *codes.DefinitionError, at
// start-up, if h is nil.
func Wrap(h server.ToolHandlerFunc) server.ToolHandlerFunc {
	w := mustWrapper("Wrap", h == nil)
	kind := helperKind(h)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		w.checked.Do(func() { w.served(ctx, req.Params.Name) })
		if kind == "" {
			return h(ctx, req)
		}
		res, err := h(ctx, req)
		if err == nil && res != nil && res.IsError && servers.Load(server.ServerFromContext(ctx)) != nil {
			// Both: the middleware sends the result as it is in report-only mode.
			err = helperError(kind, res)
		}
		return res, err
	}
}

// Structured returns a tool handler for a handler written for
// mcp.NewStructuredToolHandler. Like that function, it binds the arguments
// to TArgs and sends a TResult as structured content with its JSON as
// text; unlike it, it returns the errors of h, and arguments it cannot
// bind, as errors for mcperr to map, a ToolError's words included, instead
// of sending their raw text:
//
//	err := mcpgo.AddTool(s, forecastTool, mcpgo.Structured(forecast))
//
// Like regexp.MustCompile, Structured panics with a *codes.DefinitionError,
// at start-up, if h is nil.
func Structured[TArgs, TResult any](h mcp.StructuredToolHandlerFunc[TArgs, TResult]) server.ToolHandlerFunc {
	mustWrapper("Structured", h == nil)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args TArgs
		if err := req.BindArguments(&args); err != nil {
			return nil, &unboundError{err}
		}
		out, err := h(ctx, req, args)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultStructuredOnly(out), nil
	}
}

// wrapper is a handler or completion provider wrapped by this package.
type wrapper struct {
	fn      string
	opts    []filter.ToolOption // a completion provider's filters
	checked sync.Once           // Wrap's first call
	warned  sync.Once           // the record of a call on a server without mcperr
}

func mustWrapper(fn string, nilHandler bool) *wrapper {
	if nilHandler {
		panic(&codes.DefinitionError{Mistake: codes.NilValue, Reason: fn + " needs a handler; pass the function to wrap"})
	}
	return &wrapper{fn: fn}
}

// served reports whether mcperr serves the call in ctx; at the first call
// it does not, it writes one ERROR record saying so.
func (w *wrapper) served(ctx context.Context, target string) bool {
	if filter.RequestIDFromContext(ctx) != "" {
		return true
	}
	w.warned.Do(func() {
		defer func() { _ = recover() }() // a log handler that panics never takes the call down
		slog.Default().LogAttrs(ctx, slog.LevelError, "mcperr: mcpgo."+w.fn+" runs on a server without mcperr installed",
			slog.String("target", target),
			slog.String("consequence", "its failures and panics reach the SDK unhandled, exactly as without mcperr: their text is sent to the client"),
			slog.String("fix", "call mcpgo.Install(s, pipeline) at start-up, before the server runs"))
	})
	return false
}
