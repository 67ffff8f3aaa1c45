package filter

// Kind says what kind of request failed. The zero value is a tool call, so
// that a Call built for a tool, as before kinds existed, means what it did.
type Kind uint8

// The kinds of request a Pipeline handles.
const (
	// KindTool is a tools/call. Its failures are tool results with isError
	// set; Call.Tool names the tool.
	KindTool Kind = iota
	// KindResource is a resources/read, of a resource or of a resource
	// template. Its failures are JSON-RPC errors; Call.Resource is the URI
	// read.
	KindResource
	// KindPrompt is a prompts/get. Its failures are JSON-RPC errors;
	// Call.Prompt names the prompt.
	KindPrompt
	// KindCompletion is a completion/complete. Its failures are JSON-RPC
	// errors; Call.Prompt or Call.Resource names what it completes an
	// argument of.
	KindCompletion
)

// String returns "tool", "resource", "prompt" or "completion".
func (k Kind) String() string {
	switch k {
	case KindTool:
		return "tool"
	case KindResource:
		return "resource"
	case KindPrompt:
		return "prompt"
	case KindCompletion:
		return "completion"
	}
	return "unknown"
}

// Method returns the MCP method of the kind, such as "resources/read", or
// "" for an unknown kind.
func (k Kind) Method() string {
	switch k {
	case KindTool:
		return "tools/call"
	case KindResource:
		return "resources/read"
	case KindPrompt:
		return "prompts/get"
	case KindCompletion:
		return "completion/complete"
	}
	return ""
}
