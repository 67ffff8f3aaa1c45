package filter

// The MCP methods whose failures a Pipeline handles, as Call.Method names
// them.
const (
	methodCallTool     = "tools/call"
	methodReadResource = "resources/read"
	methodGetPrompt    = "prompts/get"
	methodComplete     = "completion/complete"
)

// Call identifies the request an error came from. Adapters fill it from
// the SDK's request.
type Call struct {
	// Method is the MCP method of the request: "tools/call" (the zero
	// value means it too), "resources/read", "prompts/get" or
	// "completion/complete". A tool call's failure is a result with
	// isError set; the others' is a JSON-RPC error.
	Method string
	// Tool is the name of the tool called, for a tools/call.
	Tool string
	// Resource is the URI read, for a resources/read; for a completion,
	// the URI (template) of the resource whose argument is completed.
	Resource string
	// Prompt is the name of the prompt, for a prompts/get; for a
	// completion, the prompt whose argument is completed.
	Prompt string
	// RequestID is the id of the request: see RequestIDFromContext. The
	// pipeline fills it from the context when it is empty.
	RequestID string
	// SessionID is the MCP session id; empty if there is none, as over
	// stdio.
	SessionID string
	// ProtocolVersion is the MCP protocol version negotiated for the
	// request, such as "2025-11-25"; empty if unknown. It decides the
	// JSON-RPC code of a resource not found: see Failure.JSONRPCCode.
	ProtocolVersion string
}

func (c Call) isTool() bool { return c.Method == "" || c.Method == methodCallTool }

// subject returns how messages name what c requests: its kind ("tool",
// "resource", "prompt", or "completion for prompt" or "for resource") and
// its name or URI; a completion of neither is "completion" and "".
func (c Call) subject() (noun, target string) {
	switch c.Method {
	case methodReadResource:
		return "resource", c.Resource
	case methodGetPrompt:
		return "prompt", c.Prompt
	case methodComplete:
		if c.Prompt != "" {
			return "completion for prompt", c.Prompt
		}
		if c.Resource != "" {
			return "completion for resource", c.Resource
		}
		return "completion", ""
	}
	return "tool", c.Tool
}
