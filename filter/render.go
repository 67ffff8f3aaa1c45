package filter

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/nilness"
	"github.com/mcperr/mcperr/toolerr"
)

// Renderer returns the text blocks of the result of a failed call, in
// order, from the Response the pipeline has completed: its code, message,
// details, retry advice, ref and hints are all set. Hosts give these blocks
// to the model; the envelope in _meta is for programs.
//
// Everything a Renderer returns is sent to the client. A Response holds
// nothing of a masked error but its ref, so a Renderer cannot leak one. A
// custom Renderer gets a copy: writing to its fields changes nothing else
// sent.
type Renderer func(r *Response) []string

// maxBlocks bounds the number of text blocks a Renderer may return.
const maxBlocks = 16

// RenderForModel is the default Renderer. It returns the message exactly as
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
// error that may not be retried, "no." for a server error. Ref when the
// failure has one and the message does not already end with it (a message
// written by the application for a server code). One Hint line for each
// hint, in order, with any line break in it replaced by a space.
func RenderForModel(r *Response) []string {
	return []string{r.Message, modelBlock(r)}
}

// modelBlock is the second block of RenderForModel, built with one
// allocation.
func modelBlock(r *Response) string {
	details := r.detailsJSON
	if details == nil && len(r.Details) > 0 {
		details, _ = json.Marshal(r.Details)
	}
	retry := retryText(r)
	ref := r.Ref != "" && !strings.Contains(r.Message, "(ref: "+r.Ref+")")
	n := len("Code: ") + len(r.Code) + len("\nRetry: ") + len(retry)
	if len(details) > 0 {
		n += len("\nDetails: ") + len(details)
	}
	if ref {
		n += len("\nRef: ") + len(r.Ref)
	}
	for _, h := range r.Hints {
		n += len("\nHint: ") + len(h)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString("Code: ")
	b.WriteString(string(r.Code))
	if len(details) > 0 {
		b.WriteString("\nDetails: ")
		b.Write(details)
	}
	b.WriteString("\nRetry: ")
	b.WriteString(retry)
	if ref {
		b.WriteString("\nRef: ")
		b.WriteString(r.Ref)
	}
	for _, h := range r.Hints {
		b.WriteString("\nHint: ")
		writeLine(&b, h)
	}
	return b.String()
}

// writeLine writes s with each line break replaced by a space, so that a
// hint stays one line of the block.
func writeLine(b *strings.Builder, s string) {
	if !strings.ContainsAny(s, "\r\n") {
		b.WriteString(s)
		return
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\r' || c == '\n' {
			b.WriteByte(' ')
		} else {
			b.WriteByte(c)
		}
	}
}

// RenderMessageOnly is the Renderer of the message alone: the message
// exactly as written, then one "Hint: ..." block for each hint. Code,
// details and retry advice are then only in the envelope, which most hosts
// do not show the model.
func RenderMessageOnly(r *Response) []string {
	out := make([]string, 0, 1+len(r.Hints))
	out = append(out, r.Message)
	for _, h := range r.Hints {
		out = append(out, "Hint: "+h)
	}
	return out
}

// retryText is the retry advice of r in words.
func retryText(r *Response) string {
	if r.Retryable != nil && *r.Retryable {
		if r.RetryAfter > 0 {
			return "yes, after " + waitText(r.RetryAfter) + "."
		}
		return "yes."
	}
	if r.category == codes.Server {
		return "no."
	}
	return "no, not with the same arguments."
}

// waitText says d in words, rounded up to a whole number of the largest
// fitting unit among milliseconds, seconds, minutes and hours.
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

// WithRenderer sets how a failure is rendered as the text blocks the model
// reads: RenderForModel (the default), RenderMessageOnly, or the
// application's own Renderer. A Renderer that panics or returns no blocks
// is replaced by RenderForModel for that call, and its failure noted in the
// call's log record; at most 16 blocks are sent, each at most MaxMessage
// bytes.
func WithRenderer(fn Renderer) Option {
	return func(p *Pipeline) error {
		if nilness.IsNil(fn) {
			return &toolerr.DefinitionError{Code: codes.InvalidOption,
				Reason: "WithRenderer needs a function; pass filter.RenderForModel or filter.RenderMessageOnly, or leave the option out for the default"}
		}
		p.render = fn
		p.messageOnly = sameFunc(fn, RenderMessageOnly)
		p.customRender = !sameFunc(fn, RenderForModel) && !p.messageOnly
		return nil
	}
}

// sameFunc reports whether a and b are the same top-level function.
func sameFunc(a, b Renderer) bool {
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}
