package obsserver_test

import (
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/realistic/obsserver"
	"github.com/mcperr/mcperr/internal/testrig/realistic/suite"
)

// dsn is the warehouse's DSN, password included, which a failed
// query_metrics puts in its error.
const dsn = "postgres://metrics:Sup3rS3cret-pw@10.20.0.7:5432/metrics?sslmode=disable"

var cases = []suite.Case{
	// search_traces
	{Name: "search_traces_by_service", Tool: "search_traces", Args: map[string]any{"service_name": "checkout"},
		Bare: ok(`{"spans":[{"duration_ms":164,"operation":"PlaceOrder","parent":"gateway","service":"checkout","trace_id":"4bf92f3577b34da6"}]}`)},
	{Name: "search_traces_by_trace", Tool: "search_traces", Args: map[string]any{"trace_id": "a3ce929d0e0e4736", "limit": 1},
		Bare: ok(`{"spans":[{"duration_ms":12,"operation":"GET /cart","service":"gateway","trace_id":"a3ce929d0e0e4736"}]}`)},
	{Name: "search_traces_trace_not_found", Tool: "search_traces", Args: map[string]any{"trace_id": "ffffffffffffffff"},
		Bare: handBuilt("trace ffffffffffffffff not found", `{"spans":null}`), Failure: suite.HandBuilt},
	{Name: "search_traces_neither", Tool: "search_traces", Args: map[string]any{},
		Bare:    sdkError("either trace_id or service_name must be provided"),
		Failure: suite.Returns, Enforced: codes.InternalError, Logged: "either trace_id or service_name must be provided"},
	{Name: "search_traces_neither_with_limit", Tool: "search_traces", Args: map[string]any{"limit": 5},
		Bare:    sdkError("either trace_id or service_name must be provided"),
		Failure: suite.Returns, Enforced: codes.InternalError, Logged: "either trace_id or service_name must be provided"},
	{Name: "search_traces_limit_string", Tool: "search_traces", Args: map[string]any{"service_name": "checkout", "limit": "10"},
		Bare:    sdkError(`validating "arguments": validating root: validating /properties/limit: type: 10 has type "string", want "integer"`),
		Failure: suite.Refused, Enforced: codes.ValidationError, Fields: []string{"limit"}},

	// get_service_map
	{Name: "get_service_map", Tool: "get_service_map", Args: map[string]any{"service_name": "checkout"},
		Bare: ok(`{"called_by":["gateway"],"calls":["payments"],"service":"checkout"}`)},
	{Name: "get_service_map_missing_service", Tool: "get_service_map", Args: map[string]any{},
		Bare:    sdkError(`validating "arguments": validating root: required: missing properties: ["service_name"]`),
		Failure: suite.Refused, Enforced: codes.ValidationError, Fields: []string{"service_name"}},
	{Name: "get_service_map_empty_service", Tool: "get_service_map", Args: map[string]any{"service_name": ""},
		Bare:    sdkError("service_name is required"),
		Failure: suite.Returns, Enforced: codes.InternalError, Logged: "service_name is required"},
	{Name: "get_service_map_unknown_service", Tool: "get_service_map", Args: map[string]any{"service_name": "billing"},
		Bare:    handBuilt(`service "billing" is not instrumented; known services: cart, checkout, gateway, payments`, `{"called_by":null,"calls":null,"service":""}`),
		Failure: suite.Returns, Enforced: codes.InternalError, Logged: `service "billing" is not instrumented`},
	{Name: "get_service_map_unknown_argument", Tool: "get_service_map", Args: map[string]any{"service_name": "checkout", "dept": 2},
		Bare:    sdkError(`validating "arguments": validating root: unexpected additional properties ["dept"]`),
		Failure: suite.Refused, Enforced: codes.ValidationError, Fields: []string{"dept"}},
	{Name: "get_service_map_depth_string", Tool: "get_service_map", Args: map[string]any{"service_name": "checkout", "depth": "2"},
		Bare:    sdkError(`validating "arguments": validating root: validating /properties/depth: type: 2 has type "string", want "integer"`),
		Failure: suite.Refused, Enforced: codes.ValidationError, Fields: []string{"depth"}},

	// query_metrics
	{Name: "query_metrics", Tool: "query_metrics", Args: map[string]any{"metric": "http.requests", "service": "checkout", "window": "1m"},
		Bare: ok(`{"metric":"http.requests","points":[{"at":"12:01","value":44}]}`)},
	{Name: "query_metrics_all_services", Tool: "query_metrics", Args: map[string]any{"metric": "http.requests"},
		Bare: ok(`{"metric":"http.requests","points":[{"at":"12:00","value":41},{"at":"12:01","value":44},{"at":"12:00","value":120},{"at":"12:01","value":131}]}`)},
	{Name: "query_metrics_bad_window", Tool: "query_metrics", Args: map[string]any{"metric": "http.requests", "window": "5 minutes"},
		Bare:    handBuilt(`invalid window "5 minutes": time: unknown unit " minutes" in duration "5 minutes"`, `{"metric":"","points":null}`),
		Failure: suite.HandBuilt},
	{Name: "query_metrics_unknown_metric", Tool: "query_metrics", Args: map[string]any{"metric": "http.latency"},
		Bare: handBuilt(`metric "http.latency" not found`, `{"metric":"","points":null}`), Failure: suite.HandBuilt},
	{Name: "query_metrics_warehouse_down", Tool: "query_metrics", Args: map[string]any{"metric": "db.connections"},
		Bare:    sdkError("query_metrics db.connections: warehouse: connect " + dsn + ": dial tcp 10.20.0.7:5432: connect: connection refused"),
		Failure: suite.Returns, Enforced: codes.InternalError, Secrets: []string{"Sup3rS3cret-pw", "10.20.0.7"}, Logged: dsn},
	{Name: "query_metrics_window_number", Tool: "query_metrics", Args: map[string]any{"metric": "http.requests", "window": 5},
		Bare:    sdkError(`validating "arguments": validating root: validating /properties/window: type: 5 has type "integer", want "string"`),
		Failure: suite.Refused, Enforced: codes.ValidationError, Fields: []string{"window"}},
	{Name: "query_metrics_no_metric", Tool: "query_metrics", Args: map[string]any{"window": "5m"},
		Bare:    sdkError(`validating "arguments": validating root: required: missing properties: ["metric"]`),
		Failure: suite.Refused, Enforced: codes.ValidationError, Fields: []string{"metric"}},
}

// TestServer runs the table on the bare server and with mcperr installed.
func TestServer(t *testing.T) {
	start := func(t *testing.T, cfg suite.Config, install bool, logger *slog.Logger) suite.Client {
		var opts obsserver.Options
		if install {
			p, err := filter.New(append(cfg.Options, filter.WithLogger(logger))...)
			if err != nil {
				t.Fatal(err)
			}
			opts.Setup = func(s *mcp.Server) error { return gosdk.Install(s, p) }
		}
		s, err := obsserver.New(&obsserver.MemStore{WarehouseDSN: dsn}, opts)
		if err != nil {
			t.Fatal(err)
		}
		return suite.ConnectGoSDK(t, s)
	}
	suite.Run(t, cases, nil, start,
		suite.Modes()...)
}

const meta = `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"obs","version":"1.4.0"}},`

// ok is the JSON of a successful typed result with structured content
// and, as go-sdk adds it, the same JSON as text; go-sdk writes the keys of
// the output in sorted order.
func ok(structured string) string {
	return meta + `"content":[{"type":"text","text":` + suite.JSONString(structured) + `}],"structuredContent":` + structured + `,"resultType":"complete"}`
}

// handBuilt is the JSON of an error result the handler built with text,
// beside which go-sdk puts the structured form of the handler's zero
// output.
func handBuilt(text, structured string) string {
	return meta + `"content":[{"type":"text","text":` + suite.JSONString(text) + `}],"structuredContent":` + structured + `,"isError":true,"resultType":"complete"}`
}

// sdkError is the JSON of the error result go-sdk makes of an error:
// the error's text, nothing else.
func sdkError(text string) string {
	return meta + `"content":[{"type":"text","text":` + suite.JSONString(text) + `}],"isError":true,"resultType":"complete"}`
}
