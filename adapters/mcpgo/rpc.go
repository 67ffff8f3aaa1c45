package mcpgo

import (
	"context"
	"errors"
	"reflect"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/isolate"
	"github.com/mcperr/mcperr/internal/panics"
)

// rpcFailure is what a resource, prompt or completion handler served by
// mcperr returns when it fails: the JSON-RPC error of
// filter.Pipeline.HandleRPC. The SDK sends its Error text, the message the
// client reads, exactly, as the error's message, under the code -32603;
// the error hook of Install (see rewriteRPCError) then sets the code and
// data. It does not unwrap to the handler's error, so that nothing in that
// chain can make the SDK send more.
type rpcFailure struct{ e *filter.RPCError }

func (f *rpcFailure) Error() string { return f.e.Message }

// serveRPC runs one resource, prompt or completion handler, next, with the
// configuration of st: a panic, or an error other than a deliberate
// protocol error or one mapped already, becomes an *rpcFailure, mapped with
// filters and logged once. next runs on a goroutine of its own, so that a
// handler that ends its goroutine is answered, and the server goes on.
func serveRPC[Res any](ctx context.Context, st *serverState, call filter.Call, next func(context.Context) (Res, error), filters []filter.Filter) (Res, error) {
	var zero Res
	out, ended := isolate.NewRunner(callRPC[Res]).Run(rpcCall[Res]{ctx: ctx, next: next})
	if failure := panics.Err(ended); failure != nil {
		return zero, &rpcFailure{st.p.HandleRPC(ctx, call, failure, filters...)}
	}
	if out.err == nil || isProtocolError(out.err) {
		return out.res, out.err
	}
	if f, ok := out.err.(*rpcFailure); ok {
		return zero, f
	}
	return zero, &rpcFailure{st.p.HandleRPC(ctx, call, out.err, filters...)}
}

// rpcCall is one call of a resource, prompt or completion handler.
type rpcCall[Res any] struct {
	ctx  context.Context
	next func(context.Context) (Res, error)
}

// rpcResult is what it returned.
type rpcResult[Res any] struct {
	res Res
	err error
}

func callRPC[Res any](c rpcCall[Res]) rpcResult[Res] {
	res, err := c.next(c.ctx)
	return rpcResult[Res]{res, err}
}

// rpcCallOf describes a request of kind for the pipeline: the session id
// and protocol version are the SDK's.
func rpcCallOf(ctx context.Context, kind filter.Kind) filter.Call {
	c := filter.Call{Kind: kind, ProtocolVersion: server.RequestProtocolVersion(ctx)}
	if s := server.ClientSessionFromContext(ctx); s != nil {
		c.SessionID = s.SessionID()
	}
	return c
}

// resourceMiddleware is the resource handler middleware that Install puts
// on a server: it serves every resources/read, of resources and templates,
// however they were added.
func (st *serverState) resourceMiddleware(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		call := rpcCallOf(ctx, filter.KindResource)
		call.Resource = req.Params.URI
		return serveRPC(ctx, st, call, func(ctx context.Context) ([]mcp.ResourceContents, error) { return next(ctx, req) }, nil)
	}
}

// promptMiddleware is the prompt handler middleware that Install puts on a
// server: it serves every prompts/get, however the prompt was added.
func (st *serverState) promptMiddleware(next server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		call := rpcCallOf(ctx, filter.KindPrompt)
		call.Prompt = req.Params.Name
		return serveRPC(ctx, st, call, func(ctx context.Context) (*mcp.GetPromptResult, error) { return next(ctx, req) }, nil)
	}
}

// rewriteRPCError is the error hook Install adds to the server's hooks. The
// SDK sends every error of a resource, prompt or completion handler with
// the code -32603 and no data, and offers no way to choose them: it builds
// the JSON-RPC error from a value of its own type, after this hook runs.
// For an error served by mcperr, the hook sets that value's code and data
// to those of the *rpcFailure: a reflective write to two unexported fields,
// done only when they are there with the types this version of the SDK
// gives them (see setRequestError). Where they are not, the client still
// receives the message of the *rpcFailure, never the handler's error, under
// -32603.
func rewriteRPCError(_ context.Context, _ any, _ mcp.MCPMethod, _ any, err error) {
	var f *rpcFailure
	if errors.As(err, &f) {
		setRequestError(err, int64(f.e.Code), f.e.Data)
	}
}

// requestErrorType is the type of the SDK's value that becomes a JSON-RPC
// error, by its package and name.
const (
	requestErrorPkg  = "github.com/mark3labs/mcp-go/server"
	requestErrorName = "requestError"
)

// setRequestError sets the code and data of err, the SDK's *requestError,
// and reports whether it could: err must point to a struct of that package
// and name with a field code of kind int and a field data of type any.
func setRequestError(err error, code int64, data any) bool {
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	e := v.Elem()
	t := e.Type()
	if t.Kind() != reflect.Struct || t.PkgPath() != requestErrorPkg || t.Name() != requestErrorName {
		return false
	}
	c, d := e.FieldByName("code"), e.FieldByName("data")
	if !c.IsValid() || c.Kind() != reflect.Int || !d.IsValid() || d.Kind() != reflect.Interface || d.NumMethod() != 0 {
		return false
	}
	reflect.NewAt(c.Type(), unsafe.Pointer(c.UnsafeAddr())).Elem().SetInt(code)
	reflect.NewAt(d.Type(), unsafe.Pointer(d.UnsafeAddr())).Elem().Set(reflect.ValueOf(data))
	return true
}
