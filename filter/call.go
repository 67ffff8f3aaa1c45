package filter

// Call identifies the request an error came from: a tool call, or, by its
// Kind, a resource read, a prompt get or a completion. Adapters fill it from
// the SDK's request.
type Call struct {
	// Tool is the name of the tool called.
	Tool string
	// RequestID is the JSON-RPC id of the request, as text; empty if the
	// SDK does not expose it.
	RequestID string
	// SessionID is the MCP session id; empty if there is none, as over
	// stdio.
	SessionID string

	// Kind says what kind of request failed; the zero value is a tool call.
	Kind Kind
	// Resource is the URI read, for KindResource; for KindCompletion, the
	// URI (template) of the resource whose argument is completed, if that
	// is what is completed.
	Resource string
	// Prompt is the name of the prompt, for KindPrompt; for KindCompletion,
	// the prompt whose argument is completed, if that is what is completed.
	Prompt string
	// ProtocolVersion is the MCP protocol version negotiated for the
	// request, such as "2025-11-25"; empty if unknown. It decides the
	// JSON-RPC code of a resource not found: see HandleRPC.
	ProtocolVersion string
}

// Target returns what the request names: the tool, the resource's URI or
// the prompt, as its Kind says; for a completion, the prompt if set, else
// the resource.
func (c Call) Target() string {
	switch c.Kind {
	case KindResource:
		return c.Resource
	case KindPrompt:
		return c.Prompt
	case KindCompletion:
		if c.Prompt != "" {
			return c.Prompt
		}
		return c.Resource
	}
	return c.Tool
}
