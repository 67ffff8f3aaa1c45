package mcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/envelope"
)

// middleware is the tool handler middleware that Install puts on a server:
// the one place where a tool call's failures are handled, by filter.Serve.
func (st *serverState) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var opts []filter.ToolOption
		if o, ok := st.added.Load(req.Params.Name); ok {
			opts = o.([]filter.ToolOption)
		}
		h := filter.Handler[*mcp.CallToolResult]{
			Run: func(ctx context.Context) (*mcp.CallToolResult, error) {
				res, err := next(ctx, req)
				if err == nil && res != nil && res.IsError {
					// An error result of mcp-go's typed helpers, registered
					// as they are (one that Wrap runs gives both).
					if t := registeredTool(ctx, req.Params.Name); t != nil && t.Handler != nil {
						err = helperError(helperKind(t.Handler), res)
					}
				}
				return res, err
			},
			HandBuilt: func(res *mcp.CallToolResult) (string, bool) {
				if res == nil || !res.IsError {
					return "", false
				}
				return textOf(res.Content), true
			},
			Passes:    isProtocolError,
			Arguments: func(err error) *domain.Validation { return st.arguments(ctx, &req, err) },
			Repeatable: func() bool {
				t := registeredTool(ctx, req.Params.Name)
				return t != nil && (isTrue(t.Tool.Annotations.ReadOnlyHint) || isTrue(t.Tool.Annotations.IdempotentHint))
			},
		}
		h.Tools, h.Problems = st.firstCall(ctx, req.Params.Name, next)
		res, f, err := filter.Serve(ctx, st.p, callOf(ctx, &req), opts, h)
		switch {
		case f != nil:
			return errorResult(f), nil
		case res != nil && res.IsError:
			st.sawArguments(ctx, &req) // passed as it came: before the after-call hook reads it
			return res, nil
		}
		return res, err
	}
}

// helperError returns the error that res, an error result, stands for if
// the tool's handler is kind, one of mcp-go's typed helpers
// (mcp.NewTypedToolHandler, mcp.NewStructuredToolHandler): arguments they
// could not bind, or, for NewStructuredToolHandler, whose handler cannot
// build a result, the handler's error, as its text. An error result of
// one's own, of any other handler, is none.
func helperError(kind string, res *mcp.CallToolResult) error {
	text := textOf(res.Content)
	switch {
	case kind == "":
		return nil
	case strings.HasPrefix(text, "failed to bind arguments: "):
		return &unboundError{errors.New("mcp-go's " + kind + ": " + text)}
	case kind == "NewStructuredToolHandler":
		return errors.New("mcp-go's " + kind + ": " + text)
	}
	return nil
}

// unboundError is a typed handler's failure to bind the call's arguments
// to its type: the client's to correct, as the middleware's check of the
// arguments says (checkArguments), or as a whole where the schema cannot
// say which.
type unboundError struct{ err error }

func (e *unboundError) Error() string { return e.err.Error() }
func (e *unboundError) Unwrap() error { return e.err }

// arguments says how the arguments of req do not fit the tool's input
// schema, or, for err, a failure to bind them, that they cannot be read as
// the tool expects.
func (st *serverState) arguments(ctx context.Context, req *mcp.CallToolRequest, err error) *domain.Validation {
	v := st.checkArguments(ctx, req)
	if _, unbound := err.(*unboundError); v == nil && unbound {
		v = domain.NewValidation("", nil, "The arguments cannot be read as the tool expects; check them against its input schema.")
	}
	return v
}

// helperKind returns the name of the typed helper of mcp-go that built h,
// or "": the function of h, its closure, is written in mcp-go's
// mcp/typed_tools.go, whether the compiler inlined the helper or not.
func helperKind(h server.ToolHandlerFunc) string {
	fn := runtime.FuncForPC(reflect.ValueOf(h).Pointer())
	if fn == nil {
		return ""
	}
	if file, _ := fn.FileLine(fn.Entry()); !strings.Contains(file, "mark3labs/mcp-go") || !strings.HasSuffix(file, "/mcp/typed_tools.go") {
		return ""
	}
	for _, kind := range [...]string{"NewTypedToolHandler", "NewStructuredToolHandler"} {
		if strings.Contains(fn.Name(), "."+kind+"[") {
			return kind
		}
	}
	return ""
}

func isTrue(b *bool) bool { return b != nil && *b }

func textOf(content []mcp.Content) string {
	if len(content) == 1 {
		return textBlock(content[0])
	}
	var b strings.Builder
	for _, c := range content {
		if t := textBlock(c); t != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t)
		}
	}
	return b.String()
}

func textBlock(c mcp.Content) string {
	if t, ok := c.(*mcp.TextContent); ok && t != nil {
		return t.Text
	}
	t, _ := c.(mcp.TextContent)
	return t.Text
}

// errorResult returns the tool result of a failure: a text block for each
// of its texts, its envelope in _meta[filter.MetaKey], IsError set.
func errorResult(f *filter.Failure) *mcp.CallToolResult {
	content := make([]mcp.Content, len(f.Texts))
	for i, t := range f.Texts {
		content[i] = mcp.NewTextContent(t)
	}
	return &mcp.CallToolResult{
		Result:  mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{filter.MetaKey: &f.Envelope}}},
		Content: content,
		IsError: true,
	}
}

// EnvelopeOf returns the mcperr envelope of a tool result, as a client
// received it or as a server built it, and whether it has one. A result
// without one is a success, or a failure mcperr did not handle (such as an
// error result a handler built itself).
//
//	res, err := c.CallTool(ctx, req)
//	if env, ok := mcpgo.EnvelopeOf(res); ok && env.Code == codes.NotFound {
//		...
//	}
func EnvelopeOf(res *mcp.CallToolResult) (filter.Envelope, bool) {
	if res == nil || res.Meta == nil {
		return filter.Envelope{}, false
	}
	return envelope.Read(res.Meta.AdditionalFields)
}

// isProtocolError reports whether err is a mcp.URLElicitationRequiredError,
// not wrapped, whose elicitations encode: a protocol error the SDK sends.
// Any other is a failure, so neither its text nor a broken answer leaks.
func isProtocolError(err error) bool {
	var elicitations []mcp.ElicitationParams
	switch e := err.(type) {
	case mcp.URLElicitationRequiredError:
		elicitations = e.Elicitations
	case *mcp.URLElicitationRequiredError:
		if e == nil {
			return false
		}
		elicitations = e.Elicitations
	default:
		return false
	}
	_, merr := json.Marshal(elicitations) // a MarshalJSON that panics: Serve's recovery says no
	return merr == nil
}

func callOf(ctx context.Context, req *mcp.CallToolRequest) filter.Call {
	c := filter.Call{Tool: req.Params.Name}
	if s := server.ClientSessionFromContext(ctx); s != nil {
		c.SessionID = s.SessionID()
	}
	return c
}
