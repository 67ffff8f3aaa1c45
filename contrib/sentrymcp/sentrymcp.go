// Package sentrymcp sends the server errors of an MCP server to Sentry,
// safe for personal data: a filter.Reporter for the mcperr pipeline that
// builds each event with cockroachdb/errors' BuildSentryReport, which keeps
// only what an error marks as safe (its types, stacks, safe details and
// the redacted form of its message) and so is redacted by construction.
//
// Give the Reporter to the pipeline; mcperr calls it once for each server
// error (a masked error, a panic, TIMEOUT, DATABASE_ERROR, ...), with the
// ref the client read:
//
//	p, err := filter.New(filter.WithReporter(sentrymcp.Reporter(nil)))
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

	"github.com/mcperr/mcperr/filter"
)

// maxTag is the longest tag value Sentry keeps.
const maxTag = 200

// Reporter returns a filter.Reporter that sends each server error to
// Sentry through hub. A nil hub means the hub of the call's context
// (sentry.GetHubFromContext, as Sentry's HTTP middleware puts one there)
// and, without one, sentry.CurrentHub().
//
// Report hands the event to the hub's client and returns; with Sentry's
// default HTTP transport the event is sent in the background. Call
// sentry.Flush before the program exits.
func Reporter(hub *sentry.Hub) filter.Reporter {
	return filter.ReporterFunc(func(ctx context.Context, in filter.Incident) {
		h := hub
		if h == nil {
			if h = sentry.GetHubFromContext(ctx); h == nil {
				h = sentry.CurrentHub()
			}
		}
		h.CaptureEvent(Event(in))
	})
}

// Event returns the Sentry event Reporter sends for in: the report
// errors.BuildSentryReport builds from in.Err, its safe details as
// contexts, and the tags "ref", "code", "mcp.method", "request_id",
// "session_id" where there is one, and "tool", "resource" or "prompt".
func Event(in filter.Incident) *sentry.Event {
	event, details := errors.BuildSentryReport(in.Err)
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
	tag("report_type", "error")
	tag("ref", in.Ref)
	tag("code", in.Code.String())
	tag("mcp.method", in.Call.Kind.Method())
	tag("request_id", in.Call.RequestID)
	tag("session_id", in.Call.SessionID)
	switch in.Call.Kind {
	case filter.KindTool:
		tag("tool", in.Call.Tool)
	case filter.KindResource:
		tag("resource", in.Call.Resource)
	case filter.KindPrompt:
		tag("prompt", in.Call.Prompt)
	case filter.KindCompletion:
		tag("prompt", in.Call.Prompt)
		tag("resource", in.Call.Resource)
	}
	return event
}
