package filter

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strconv"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/uriview"
)

// JSON-RPC error codes of the failures of the methods but tools/call (MCP
// specification 2025-11-25 and 2026-07-28, basic/index "Error Codes").
const (
	codeInvalidParams    int64 = -32602 // a request the client can correct, or the application refused
	codeInternalError    int64 = -32603 // a masked error, or any code of the server category
	codeResourceNotFound int64 = -32002 // NOT_FOUND of a resource, protocol 2025-11-25 and earlier
)

// rpcCode returns the JSON-RPC code of the failure e of call, as
// Failure.JSONRPCCode says. Protocol revisions are dates: they compare as
// strings, and 2026-07-28 is the first that forbids -32002.
func rpcCode(call Call, e Envelope) int64 {
	if e.Category == codes.Server || e.Ref != "" {
		return codeInternalError
	}
	if e.Code == codes.NotFound && call.Method == methodReadResource && call.ProtocolVersion != "" && call.ProtocolVersion < "2026-07-28" {
		return codeResourceNotFound
	}
	return codeInvalidParams
}

// newRef returns a new ref: 16 hex digits holding 64 random bits, short
// enough to read aloud and unique in practice at millions of errors a day.
func newRef() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error.
	return hex.EncodeToString(b[:])
}

// maskedText is the text of a masked error for call: `Internal error in
// tool "x" (ref: R).`, and the same shape for the other kinds.
func maskedText(call Call, ref string) string {
	noun, target := call.subject()
	if noun == "completion" {
		return "Internal error in completion (ref: " + ref + ")."
	}
	target = boundMessage(target, maxTarget)
	if plain(target) {
		return "Internal error in " + noun + ` "` + target + `" (ref: ` + ref + ")." // what strconv.Quote gives, in one allocation
	}
	return "Internal error in " + noun + " " + strconv.Quote(target) + " (ref: " + ref + ")."
}

// plain reports whether s has only the characters of a valid MCP tool
// name, which strconv.Quote leaves as they are.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func logMessageOf(call Call) string {
	switch call.Method {
	case methodReadResource:
		return "resource read failed"
	case methodGetPrompt:
		return "prompt get failed"
	case methodComplete:
		return "completion failed"
	}
	return "tool call failed"
}

// targetAttr is the log attribute that names what failed, by its noun; a
// completion's is a group. Under redaction a URI loses its secrets.
func targetAttr(call Call, redact bool) slog.Attr {
	uri := bound(call.Resource, 256)
	if redact && uri != "" {
		uri = uriview.Safe(uri, false)
	}
	switch call.Method {
	case methodReadResource:
		return slog.String("resource", uri)
	case methodGetPrompt:
		return slog.String("prompt", bound(call.Prompt, 256))
	case methodComplete:
		if call.Prompt != "" {
			return slog.Group("completion", slog.String("prompt", bound(call.Prompt, 256)))
		}
		return slog.Group("completion", slog.String("resource", uri))
	}
	return slog.String("tool", bound(call.Tool, 256))
}
