package filter

import (
	"context"

	"github.com/mcperr/mcperr/codes"
)

// Incident is what a Reporter receives for each server error.
type Incident struct {
	// Ref is the reference id the client received.
	Ref string
	// Call identifies the tool call.
	Call Call
	// Code is the code the client received, such as INTERNAL_ERROR.
	Code codes.Code
	// Err is the error, with everything the log sees. Never send it to a
	// client.
	Err error
}

// Reporter sends server errors to a monitoring service, such as Sentry.
// Report is called once for each server error, before the log record is
// written; a Reporter that panics is recovered and the failure logged with
// the error. Report should not block: hand the incident to a queue.
type Reporter interface {
	Report(ctx context.Context, in Incident)
}

// ReporterFunc adapts a function to a Reporter.
type ReporterFunc func(ctx context.Context, in Incident)

// Report calls f.
func (f ReporterFunc) Report(ctx context.Context, in Incident) { f(ctx, in) }
