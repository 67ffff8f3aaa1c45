package filter

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"

	"github.com/mcperr/mcperr/codes"
)

// JSON-RPC error codes of the failures of resources/read, prompts/get and
// completion/complete, which have no isError result to carry them.
const (
	// CodeInvalidParams (-32602, JSON-RPC "Invalid params") answers a
	// request the client can correct or that the application refused:
	// VALIDATION_ERROR, NOT_FOUND (of a resource from protocol 2026-07-28
	// on), and every other client or business code.
	CodeInvalidParams int64 = -32602
	// CodeInternalError (-32603, JSON-RPC "Internal error") answers a
	// masked error and every code of the server category.
	CodeInternalError int64 = -32603
	// CodeResourceNotFound (-32002) answers NOT_FOUND in a resources/read
	// on protocol 2025-11-25 and earlier, whose resources page names it.
	// Protocol 2026-07-28 replaced it by -32602 and forbids emitting it.
	CodeResourceNotFound int64 = -32002
)

// protocol20260728 is the first protocol revision where -32002 must not be
// emitted. Revisions are dates, so they compare as strings.
const protocol20260728 = "2026-07-28"

// RPCError is the JSON-RPC error the client receives for a failed
// resources/read, prompts/get or completion/complete: a code, the message
// of the Response, and the Response's envelope as data. Adapters send it as
// it is. Everything in it is for the client.
type RPCError struct {
	// Code is the JSON-RPC error code: see HandleRPC.
	Code int64
	// Message is the Response's message, exactly: the public message, or
	// the masked text with its ref.
	Message string
	// Data is the error's data member.
	Data ErrorData
	// Response is the Response the error was made from.
	Response *Response
}

// Error returns the message the client reads.
func (e *RPCError) Error() string { return e.Message }

// ErrorData is the data member of an RPCError: the Response's envelope,
// with the URI of a resource that was not found beside it, where the MCP
// specification's resources page puts it and where clients, such as the
// official TypeScript SDK's, look for it.
type ErrorData struct {
	Envelope
	// URI is the URI of the resource not found; empty otherwise, and then
	// left out.
	URI string
}

// MarshalJSON encodes d as the envelope's object, with "uri" first when it
// is set.
func (d ErrorData) MarshalJSON() ([]byte, error) {
	env, err := json.Marshal(d.Envelope)
	if err != nil || d.URI == "" || len(env) < 2 || env[0] != '{' {
		return env, err
	}
	uri, err := json.Marshal(d.URI)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(env)+len(uri)+8)
	out = append(out, `{"uri":`...)
	out = append(out, uri...)
	if len(env) > 2 {
		out = append(out, ',')
	}
	return append(out, env[1:]...), nil
}

// HandleRPC is Handle for a request whose failure is a JSON-RPC error
// rather than a tool result: a resources/read, a prompts/get or a
// completion/complete, as call.Kind says. It runs err through the same
// filters (those given to the resource or prompt where it was added, then
// the global ones, then the built-in mapping), logs it once and reports it
// as Handle does, and returns the JSON-RPC error to send. A nil err yields
// nil.
//
// The code follows the MCP specification for these methods (revisions
// 2025-11-25 and 2026-07-28: the resources, prompts and completion pages
// and basic/index "Error Codes"):
//
//   - a masked error, and any code of the server category (INTERNAL_ERROR,
//     TIMEOUT, DATABASE_ERROR, ...): -32603 Internal error, which the
//     pages name for internal errors;
//   - NOT_FOUND in a resources/read: -32002 on protocol 2025-11-25 and
//     earlier, as their resources page names it; -32602 on 2026-07-28 and
//     later, which replaced -32002 and forbids emitting it, and when the
//     version is unknown, since -32602 breaks no revision's MUST. The data
//     carries the resource's "uri", as the resources page shows;
//   - every other code, NOT_FOUND of a prompt or completion and
//     VALIDATION_ERROR included: -32602 Invalid params, which the pages
//     name for an invalid prompt name and missing or invalid arguments.
//     The request as made will not succeed; data.code says precisely why
//     and data.retryable whether it may later. No new JSON-RPC numbers are
//     made: application codes travel as strings in data.code.
//
// The message is the Response's message, exactly; its hints and details
// are in the data, the envelope, as for tools.
func (p *Pipeline) HandleRPC(ctx context.Context, call Call, err error, filters ...Filter) *RPCError {
	r := p.Handle(ctx, call, err, filters...)
	if r == nil {
		return nil
	}
	e := &RPCError{Code: p.rpcCode(call, r), Message: r.Message, Data: ErrorData{Envelope: r.Envelope()}, Response: r}
	if call.Kind == KindResource && r.Code == codes.NotFound {
		e.Data.URI = call.Resource
	}
	return e
}

// rpcCode returns the JSON-RPC code of r, the answer to call.
func (p *Pipeline) rpcCode(call Call, r *Response) int64 {
	if r.Code == codes.InternalError || r.Ref != "" {
		return CodeInternalError
	}
	if info, ok := p.registry.Lookup(r.Code); ok && info.Category == codes.Server {
		return CodeInternalError
	}
	if r.Code == codes.NotFound && call.Kind == KindResource && call.ProtocolVersion != "" && call.ProtocolVersion < protocol20260728 {
		return CodeResourceNotFound
	}
	return CodeInvalidParams
}

// maxTarget bounds the name or URI of a request in the masked text, so that
// a long URI cannot push the ref out of a bounded message.
const maxTarget = 256

// maskedText is the text of a masked error for call: `Internal error in
// tool "x" (ref: R).`, and the same shape for the other kinds.
func maskedText(call Call, ref string) string {
	switch call.Kind {
	case KindTool:
		return maskedMessage(call.Tool, ref)
	case KindCompletion:
		what := ""
		switch {
		case call.Prompt != "":
			what = " for prompt " + quoteTarget(call.Prompt)
		case call.Resource != "":
			what = " for resource " + quoteTarget(call.Resource)
		}
		return "Internal error in completion" + what + " (ref: " + ref + ")."
	}
	return "Internal error in " + call.Kind.String() + " " + quoteTarget(call.Target()) + " (ref: " + ref + ")."
}

// quoteTarget quotes a name or URI for a message, cut to maxTarget bytes.
func quoteTarget(s string) string {
	s = boundMessage(s, maxTarget)
	if plainName(s) {
		return `"` + s + `"`
	}
	return strconv.Quote(s)
}

// cancelledText and timeoutText are the messages of a cancelled request and
// of one that ran out of time. The pipeline ends a timeout's with its ref,
// as it is a server error.
func cancelledText(k Kind) string {
	if k == KindTool {
		return "The request was cancelled before the tool finished."
	}
	return "The request was cancelled before it finished."
}

func timeoutText(k Kind) string {
	if k == KindTool {
		return "The tool did not finish in time; try again, perhaps with a smaller request."
	}
	return "The request did not finish in time; try again later."
}

// logMessageOf is the message of the record of a failure of kind k.
func logMessageOf(k Kind) string {
	switch k {
	case KindResource:
		return "resource read failed"
	case KindPrompt:
		return "prompt get failed"
	case KindCompletion:
		return "completion failed"
	}
	return logMessage
}

// targetAttr is the log attribute that names what failed: "tool" for a
// tool call, as it always was; "resource" or "prompt" for the others, and
// for a completion a group "completion" with the prompt or resource.
func targetAttr(call Call) slog.Attr {
	switch call.Kind {
	case KindResource:
		return slog.String("resource", bound(call.Resource, 256))
	case KindPrompt:
		return slog.String("prompt", bound(call.Prompt, 256))
	case KindCompletion:
		if call.Prompt != "" {
			return slog.Group("completion", slog.String("prompt", bound(call.Prompt, 256)))
		}
		return slog.Group("completion", slog.String("resource", bound(call.Resource, 256)))
	}
	return slog.String("tool", bound(call.Tool, 256))
}
