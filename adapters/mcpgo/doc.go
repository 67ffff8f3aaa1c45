// Package mcpgo plugs mcperr into servers built on
// github.com/mark3labs/mcp-go. Install gives a server its one mcperr
// configuration, a *filter.Pipeline, and the middleware that turns an error
// or a panic of any tool call, resources/read or prompts/get into a failure
// the pipeline maps and logs once. Without it, the SDK sends a handler's
// error as a JSON-RPC error -32603 with the raw text, and lets a panic reach
// the caller or drop the connection.
//
// AddTool and AddTaskTool, the drop-ins for the server's own methods, take
// per-tool options and refuse a bad definition at start-up; a task tool is
// covered only when added with AddTaskTool. Wrap, Structured,
// WrapPromptCompletion and WrapResourceCompletion cover what mcperr does not
// add itself. The package never sends a client the text of an error the
// pipeline masked, a panic value, or an argument's value.
package mcpgo
