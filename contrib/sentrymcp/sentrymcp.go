// Package sentrymcp sends the server errors of an MCP server to Sentry,
// safe for personal data: an observer (filter.WithObserver) for the mcperr pipeline that
// builds each event with cockroachdb/errors' BuildSentryReport, which keeps
// only what an error marks as safe (its types, stacks, safe details and
// the redacted form of its message) and so is redacted by construction.
//
// Give the Observer to the pipeline:
//
//	p, err := filter.New(filter.WithObserver(sentrymcp.Observer(nil)))
//
// The pipeline tells it of every failure; it sends an event for each server
// error only (a failure whose category is codes.Server: a masked error,
// a panic, TIMEOUT, DATABASE_ERROR, ...), with the ref the client read.
// A client or business error, such as NOT_FOUND or a ToolError, is no
// incident and sends nothing.
//
// Each event carries the ref, the code, what failed (tool, resource or
// prompt), the MCP method and mcperr's request id as tags, so that the
// ref a user reports finds the event with the search `ref:9b1c04e2d7a35f68`.
//
// What this package must never do: put the error's text, or anything else
// the error does not mark safe, into an event. It never calls
// sentry.CaptureException, which would send err.Error() as it is; the
// event's server name is "<redacted>", so that Sentry does not fill in the
// host's name.
package sentrymcp

import (
	"context"
	"strings"

	"github.com/cockroachdb/errors"
	"github.com/getsentry/sentry-go"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/uriview"
)

// maxTag is the longest tag value Sentry keeps.
const maxTag = 200

// The MCP methods, as filter.Call.Method names them.
const (
	methodCallTool     = "tools/call"
	methodReadResource = "resources/read"
	methodGetPrompt    = "prompts/get"
	methodComplete     = "completion/complete"
)

// Observer returns an observer, for filter.WithObserver, that sends each server error, a
// failure whose Envelope.Category is codes.Server, to Sentry through hub,
// as Event builds it. A nil hub means the hub of the call's context
// (sentry.GetHubFromContext, as Sentry's HTTP middleware puts one there)
// and, without one, sentry.CurrentHub().
//
// The Observer hands the event to the hub's client and returns; with
// Sentry's default HTTP transport the event is sent in the background.
// Call sentry.Flush before the program exits.
func Observer(hub *sentry.Hub) func(context.Context, filter.Failure) {
	return func(ctx context.Context, f filter.Failure) {
		if f.Envelope.Category != codes.Server {
			return
		}
		h := hub
		if h == nil {
			if h = sentry.GetHubFromContext(ctx); h == nil {
				h = sentry.CurrentHub()
			}
		}
		h.CaptureEvent(Event(f))
	}
}

// Event returns the Sentry event Observer sends for f: the report
// errors.BuildSentryReport builds from f.Err, its safe details as
// contexts, and the tags "ref", "code", "mcp.method", "request_id",
// "session_id" where there is one, "tool", "resource" (without the URI's
// password, query and fragment) or "prompt", and
// "report_only" and "hand_built" ("true") where filter.Failure says so.
// It reads nothing else of f: not its texts, not its ErrorText.
func Event(f filter.Failure) *sentry.Event {
	event, details := errors.BuildSentryReport(f.Err)
	if event == nil {
		event = sentry.NewEvent()
	}
	if event.Contexts == nil {
		event.Contexts = make(map[string]sentry.Context)
	}
	for k, v := range details {
		event.Contexts[k] = sentry.Context{"value": v}
	}
	event.Level = sentry.LevelError
	event.ServerName = "<redacted>"
	if event.Tags == nil {
		event.Tags = make(map[string]string)
	}
	tag := func(k, v string) {
		if v != "" {
			if len(v) > maxTag {
				v = strings.ToValidUTF8(v[:maxTag], "")
			}
			event.Tags[k] = v
		}
	}
	method := f.Call.Method
	if method == "" {
		method = methodCallTool
	}
	tag("report_type", "error")
	tag("ref", f.Envelope.Ref)
	tag("code", string(f.Envelope.Code))
	tag("mcp.method", method)
	tag("request_id", f.Call.RequestID)
	tag("session_id", f.Call.SessionID)
	if f.ReportOnly {
		tag("report_only", "true")
	}
	if f.HandBuilt {
		tag("hand_built", "true")
	}
	switch method {
	case methodCallTool:
		tag("tool", f.Call.Tool)
	case methodReadResource:
		tag("resource", uriview.Safe(f.Call.Resource, false))
	case methodGetPrompt:
		tag("prompt", f.Call.Prompt)
	case methodComplete:
		tag("prompt", f.Call.Prompt)
		if f.Call.Resource != "" {
			tag("resource", uriview.Safe(f.Call.Resource, false))
		}
	}
	return event
}
