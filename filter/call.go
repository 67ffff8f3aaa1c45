package filter

// Call identifies the tool call an error came from. Adapters fill it from
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
}
