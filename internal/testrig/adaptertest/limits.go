package adaptertest

import (
	"time"

	"github.com/mcperr/mcperr/filter"
)

// The bounds the filter package documents for everything it sends and
// logs, which it keeps unexported: the tests hold its output to them.
const (
	// MaxChain is the number of errors of one chain the pipeline walks.
	MaxChain = 256
	// MaxLogValue is the length in bytes of one logged value.
	MaxLogValue = 8 << 10
	// MaxMessage is the length in bytes of a message or text block.
	MaxMessage = 16 << 10
	// MaxDetails is the length in bytes of the details' JSON.
	MaxDetails = 16 << 10
	// MaxHints is the number of hints sent.
	MaxHints = 8
	// MaxHint is the length in bytes of one hint.
	MaxHint = 1 << 10
	// MaxRetryAfter is the longest retry delay sent.
	MaxRetryAfter = 7 * 24 * time.Hour
	// MaxBlocks is the number of text blocks a Renderer may send.
	MaxBlocks = 16
)

// JSON-RPC error codes of a failed resources/read, prompts/get or
// completion/complete.
const (
	// CodeInvalidParams is -32602: a client or business error.
	CodeInvalidParams int64 = -32602
	// CodeInternalError is -32603: a server error.
	CodeInternalError int64 = -32603
	// CodeResourceNotFound is -32002: a resource not found, on protocol
	// 2025-11-25 and earlier.
	CodeResourceNotFound int64 = -32002
)

// MessageOnly is a renderer (filter.WithRenderer) of the message alone,
// then one "Hint: ..." block a hint: what the model read before mcperr
// rendered failures for it.
func MessageOnly(e filter.Envelope) []string {
	out := []string{e.Message}
	for _, h := range e.Hints {
		out = append(out, "Hint: "+h)
	}
	return out
}
