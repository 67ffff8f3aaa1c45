package filter

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/mcperr/mcperr/codes"
)

// RenderForModel is the default renderer (see WithRenderer). It returns the message exactly as
// written, then one block with what the model needs to act on it, one fact
// a line, in this order:
//
//	Code: INSUFFICIENT_FUNDS
//	Details: {"available":100,"requested":250}
//	Retry: no, not with the same arguments.
//	Ref: 9b1c04e2d7a35f68
//	Hint: Offer a transfer of at most 100.
//
// Code is always there. Details, the public details as compact JSON, only
// when there are any. Retry always, in words: "yes.", "yes, after 30
// seconds.", "no, not with the same arguments." for a client or business
// error that may not be retried, "no." for a server error, and "not before
// checking; ..." when the outcome is unknown (Envelope.Outcome). Ref when the
// failure has one and the message does not already end with it. One Hint
// line for each hint, in order, with any line break in it replaced by a
// space.
func RenderForModel(e Envelope) []string {
	return []string{e.Message, modelBlock(e)}
}

// modelBlock is the second block of RenderForModel, in one allocation.
func modelBlock(e Envelope) string {
	retry := retryText(e)
	ref := e.Ref != "" && !strings.Contains(e.Message, "(ref: "+e.Ref+")")
	n := len("Code: ") + len(e.Code) + len("\nRetry: ") + len(retry)
	if len(e.Details) > 0 {
		n += len("\nDetails: ") + len(e.Details)
	}
	if ref {
		n += len("\nRef: ") + len(e.Ref)
	}
	for _, h := range e.Hints {
		n += len("\nHint: ") + len(h)
	}
	details := e.Details
	if n > maxMessage && len(details) > 0 {
		// A block is bounded like a message: details too large to repeat
		// here stay in the envelope alone.
		const elsewhere = "(too large to repeat here; see the envelope)"
		n += len(elsewhere) - len(details)
		details = json.RawMessage(elsewhere)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString("Code: ")
	b.WriteString(string(e.Code))
	if len(details) > 0 {
		b.WriteString("\nDetails: ")
		b.Write(details)
	}
	b.WriteString("\nRetry: ")
	b.WriteString(retry)
	if ref {
		b.WriteString("\nRef: ")
		b.WriteString(e.Ref)
	}
	for _, h := range e.Hints {
		b.WriteString("\nHint: ")
		for i := 0; i < len(h); i++ { // one line: line breaks become spaces
			if c := h[i]; c == '\r' || c == '\n' {
				b.WriteByte(' ')
			} else {
				b.WriteByte(c)
			}
		}
	}
	return boundMessage(b.String(), maxMessage)
}

func retryText(e Envelope) string {
	if e.Outcome != "" {
		return "not before checking; the outcome is unknown, and the tool may have done its work before it failed."
	}
	if e.Retryable {
		if d := e.retryAfter(); d > 0 {
			return "yes, after " + waitText(d) + "."
		}
		return "yes."
	}
	if e.Category == codes.Server {
		return "no."
	}
	return "no, not with the same arguments."
}

// waitText says d in words, rounded up to a whole number of its largest unit.
func waitText(d time.Duration) string {
	unit, name := time.Millisecond, "millisecond"
	switch {
	case d >= 2*time.Hour:
		unit, name = time.Hour, "hour"
	case d >= 2*time.Minute:
		unit, name = time.Minute, "minute"
	case d >= time.Second:
		unit, name = time.Second, "second"
	}
	n := int64((d + unit - 1) / unit)
	if n == 1 {
		return "1 " + name
	}
	return strconv.FormatInt(n, 10) + " " + name + "s"
}
