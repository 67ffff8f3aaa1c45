package otelmcp

import (
	"context"
	"errors"
	"strconv"

	"github.com/mcperr/mcperr/filter"
)

// errMisordered is reported, once, through otel.Handle when the middleware
// runs inside mcperr's: the span then ends before mcperr maps the error,
// and the Observer cannot annotate it.
var errMisordered = errors.New("otelmcp: the span middleware runs inside mcperr's, so its span is not active when mcperr maps an error: " +
	"on go-sdk, add otelmcp.GoSDKMiddleware after gosdk.Install; on mcp-go, call otelmcp.InstrumentMCPGo before mcpgo.Install")

// mcperrOutside reports whether mcperr's middleware already prepared ctx,
// which means it runs outside the span middleware.
func mcperrOutside(ctx context.Context) bool {
	return filter.RequestIDFromContext(ctx) != ""
}

// formatCode returns a JSON-RPC error code as error.type and
// rpc.response.status_code hold it: in decimal, such as "-32603".
func formatCode(code int64) string { return strconv.FormatInt(code, 10) }
