package gosdk

import (
	"context"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// Wrap returns a typed tool handler that runs h, for a tool that something
// else registers, such as a framework's helper:
//
//	mcp.AddTool(s, tool, gosdk.Wrap(h))
//
// The middleware of Install handles the failures of every tool however it
// was added, so on a server with mcperr installed the wrapped handler is h;
// a tool's own options are declared at start-up, with filter.ForTool. On a
// server without mcperr, its first call writes one ERROR record to
// slog.Default saying that mcperr is not installed and what to do, and its
// failures and panics reach the SDK as they came.
//
// Like regexp.MustCompile, Wrap panics with a *codes.DefinitionError, at
// start-up, if h is nil.
func Wrap[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	w := mustWrap("Wrap", h == nil)
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		w.check(ctx, req)
		return h(ctx, req, in)
	}
}

// WrapRaw is Wrap for a raw tool handler:
//
//	s.AddTool(tool, gosdk.WrapRaw(h))
func WrapRaw(h mcp.ToolHandler) mcp.ToolHandler {
	w := mustWrap("WrapRaw", h == nil)
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		w.check(ctx, req)
		return h(ctx, req)
	}
}

func mustWrap(fn string, nilHandler bool) *wrapper {
	if nilHandler {
		panic(&codes.DefinitionError{Mistake: codes.NilValue, Reason: fn + " needs a handler; pass the function that implements the tool"})
	}
	return &wrapper{fn: fn}
}

// wrapper is a handler wrapped by Wrap or WrapRaw.
type wrapper struct {
	fn      string
	checked sync.Once // the first call, and the record of a server without mcperr
}

// check writes, at the first call of the wrapped handler, if mcperr does
// not serve it, one ERROR record saying so.
func (w *wrapper) check(ctx context.Context, req *mcp.CallToolRequest) {
	w.checked.Do(func() {
		if filter.RequestIDFromContext(ctx) != "" {
			return
		}
		defer func() { _ = recover() }() // a log handler that panics never takes the call down
		slog.Default().LogAttrs(ctx, slog.LevelError, "mcperr: gosdk."+w.fn+" runs on a server without mcperr installed",
			slog.String("tool", callOf(req).Tool),
			slog.String("consequence", "the tool's failures and panics reach the SDK unhandled, exactly as without mcperr: their text is sent to the client, a panic ends the process"),
			slog.String("fix", "call gosdk.Install(s, pipeline) at start-up, before the server runs"))
	})
}
