// Package toolkit is a small wrapper of the kind MCP servers on
// github.com/modelcontextprotocol/go-sdk grow for themselves: one generic
// function that registers a typed tool and logs each of its calls.
package toolkit

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Register adds a typed tool to s with mcp.AddTool, logging each call to
// logger when it ends: the tool, how long it took and, when the handler
// returned one, its error. A nil logger logs nothing.
func Register[In, Out any](s *mcp.Server, logger *slog.Logger, tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	name := tool.Name
	mcp.AddTool(s, tool, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		start := time.Now()
		res, out, err := h(ctx, req, in)
		if logger != nil {
			attrs := []slog.Attr{slog.String("tool", name), slog.Duration("took", time.Since(start))}
			level := slog.LevelInfo
			if err != nil {
				level = slog.LevelWarn
				attrs = append(attrs, slog.String("error", err.Error()))
			}
			logger.LogAttrs(ctx, level, "tool call", attrs...)
		}
		return res, out, err
	})
}
