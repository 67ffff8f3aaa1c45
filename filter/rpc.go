package filter

import (
	"crypto/rand"
	"encoding/hex"
	"github.com/mcperr/mcperr/internal/uriview"
	"log/slog"
	"strconv"

	"github.com/mcperr/mcperr/codes"
)

// JSON-RPC error codes of the failures of resources/read, prompts/get and
// completion/complete, which have no isError result to carry them (MCP
// specification 2025-11-25 and 2026-07-28: the resources, prompts and
// completion pages, and basic/index "Error Codes").
const (
	codeInvalidParams    int64 = -32602 // a request the client can correct, or the application refused
	codeInternalError    int64 = -32603 // a masked error, or any code of the server category
	codeResourceNotFound int64 = -32002 // NOT_FOUND of a resource, protocol 2025-11-25 and earlier
)

// protocol20260728 is the first protocol revision where -32002 must not be
// emitted. Revisions are dates, so they compare as strings.
const protocol20260728 = "2026-07-28"

// rpcCode returns the JSON-RPC code of the failure e of call: -32603 for a
// server error; for NOT_FOUND in a resources/read, -32002 on protocol
// 2025-11-25 and earlier, whose resources page names it, and -32602 on
// 2026-07-28 and later, which forbids -32002, and when the version is
// unknown; -32602 for every other code, which the pages name for invalid
// names and arguments. Application codes travel as strings in data.code.
func rpcCode(call Call, e Envelope) int64 {
	if e.Category == codes.Server || e.Ref != "" {
		return codeInternalError
	}
	if e.Code == codes.NotFound && call.Method == methodReadResource && call.ProtocolVersion != "" && call.ProtocolVersion < protocol20260728 {
		return codeResourceNotFound
	}
	return codeInvalidParams
}

// newRef returns a new reference id: 16 lowercase hex digits holding 64
// random bits from crypto/rand, short enough to read aloud and unique in
// practice at millions of errors a day.
func newRef() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error.
	return hex.EncodeToString(b[:])
}

// maxTarget bounds the name or URI of a request in the masked text, so that
// a long URI cannot push the ref out of a bounded message.
const maxTarget = 256

// maskedText is the text of a masked error for call: `Internal error in
// tool "x" (ref: R).`, and the same shape for the other kinds.
func maskedText(call Call, ref string) string {
	if call.Method == methodComplete {
		what := ""
		switch {
		case call.Prompt != "":
			what = " for prompt " + quoteTarget(call.Prompt)
		case call.Resource != "":
			what = " for resource " + quoteTarget(call.Resource)
		}
		return "Internal error in completion" + what + " (ref: " + ref + ")."
	}
	target := boundMessage(call.target(), maxTarget)
	if plain(target) {
		return "Internal error in " + call.noun() + ` "` + target + `" (ref: ` + ref + ")." // one allocation
	}
	return "Internal error in " + call.noun() + " " + strconv.Quote(target) + " (ref: " + ref + ")."
}

// quoteTarget quotes a name or URI for a message, cut to maxTarget bytes.
func quoteTarget(s string) string {
	s = boundMessage(s, maxTarget)
	if plain(s) {
		return `"` + s + `"` // what strconv.Quote gives, cheaper
	}
	return strconv.Quote(s)
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

// cancelledText and timeoutText are the messages of a cancelled request and
// of one that ran out of time. The pipeline ends a timeout's with its ref,
// as it is a server error.
func cancelledText(call Call) string {
	if call.isTool() {
		return "The request was cancelled before the tool finished."
	}
	return "The request was cancelled before it finished."
}

func timeoutText(call Call) string {
	if call.isTool() {
		return "The tool did not finish in time; try again, perhaps with a smaller request."
	}
	return "The request did not finish in time; try again later."
}

// logMessageOf is the message of the record of a failure of call.
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

// targetAttr is the log attribute that names what failed: "tool",
// "resource" or "prompt", and for a completion a group "completion" with
// the prompt or resource. Under redaction a resource's URI loses its
// password, query and fragment.
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
