// Package reslice holds code whose taint search was exponential: an
// address-taken local re-sliced again and again, each re-slicing a path
// back to every other, whose text is clean, so that every path had to be
// walked. The analyzers must finish on it, say nothing of it, and still
// find the leak beside it.
package reslice

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// describe returns a fixed text after a queue of re-slicings.
func describe(err error) string {
	queue := []string{"", "the order service failed"}
	keep := &queue // address-taken: queue lives in memory, not in registers
	_ = keep
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	if len(queue) > 1 {
		queue = queue[1:]
	}
	return queue[0]
}

func handler(err error) *mcpgo.CallToolResult {
	return mcpgo.NewToolResultError(describe(err))
}

func leak(err error) *mcpgo.CallToolResult { // want leak:`sdkHelper`
	return mcpgo.NewToolResultError("failed: " + err.Error()) // want `mcp.NewToolResultError text`
}
