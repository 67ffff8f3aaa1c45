package filter

import (
	"context"
	"time"

	"github.com/mcperr/mcperr/domain"
)

// For the tests of package filter_test: the schema check of every envelope
// a test sees.
var (
	CheckEnvelope = checkEnvelope
	EnvelopeError = envelopeError
)

// Input is one failure as Serve hands it to the pipeline, for the tests of
// the decision alone, without running a handler: Err, or, with HandBuilt,
// an error result of text Text; the tool's own options; the adapter's
// check of the arguments and its annotations; the attempt, how long it
// took, and the ref of the earlier attempts.
type Input struct {
	Err        error
	HandBuilt  bool
	Text       string
	Options    []ToolOption
	Arguments  func(err error) *domain.Validation
	Repeatable func() bool
	Attempt    int
	Took       time.Duration
	Ref        string
}

// HandleInput decides the answer to in, a failure of call, as Serve does.
func (p *Pipeline) HandleInput(ctx context.Context, call Call, in Input, filters ...Filter) *Failure {
	i := input{call: call, err: in.Err, text: in.Text, tool: p.toolFor(call.Tool, in.Options),
		attempt: max(in.Attempt, 1), took: in.Took, ref: in.Ref}
	if !in.HandBuilt && in.Err == nil {
		return nil
	}
	if len(filters) > 0 {
		i.tool.filters = append(filters[:len(filters):len(filters)], i.tool.filters...)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return p.handle(ctx, &i, &asks{arguments: in.Arguments, repeatable: in.Repeatable})
}

// Succeeded tells p that a tool call succeeded, as Serve does, for the
// retry budget, and reports whether p retries at all.
func (p *Pipeline) Succeeded() bool {
	p.succeeded()
	return p.retries > 0
}

// Served returns the context Serve gives the handler of call.
func Served(ctx context.Context, call Call) context.Context {
	return (&Pipeline{}).enter(ctx, call)
}
