package main

import (
	"context"
	"log/slog"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
)

// textHandler adapts a service call with a text result to mcp-go.
func textHandler(do func(ctx context.Context, req mcp.CallToolRequest) (string, error)) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		text, err := do(ctx, req)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(text), nil
	}
}

// mcpGoTools returns every tool with its handler.
func mcpGoTools() []server.ServerTool {
	idTool := func(name, description string) mcp.Tool {
		return mcp.NewTool(name, mcp.WithDescription(description),
			mcp.WithString("id", mcp.Required()), mcp.WithSchemaAdditionalProperties(false))
	}
	noArgs := func(name, description string) mcp.Tool {
		return mcp.NewTool(name, mcp.WithDescription(description), mcp.WithSchemaAdditionalProperties(false))
	}
	return []server.ServerTool{
		{Tool: mcp.NewTool("divide", mcp.WithDescription("Divides a by b."),
			mcp.WithNumber("a", mcp.Required()), mcp.WithNumber("b", mcp.Required()), mcp.WithSchemaAdditionalProperties(false)),
			Handler: textHandler(func(_ context.Context, req mcp.CallToolRequest) (string, error) {
				// A handler that cannot read its arguments fails: mcperr then
				// answers VALIDATION_ERROR, naming the fields that do not fit
				// the schema.
				a, err := req.RequireFloat("a")
				if err != nil {
					return "", err
				}
				b, err := req.RequireFloat("b")
				if err != nil {
					return "", err
				}
				q, err := Divide(a, b)
				return strconv.FormatFloat(q, 'g', -1, 64), err
			})},
		{Tool: idTool("get_order", "Returns an order; only ord_1 exists."),
			Handler: textHandler(func(_ context.Context, req mcp.CallToolRequest) (string, error) {
				return GetOrder(req.GetString("id", ""))
			})},
		{Tool: mcp.NewTool("set_status", mcp.WithDescription("Sets an order's status."),
			mcp.WithString("id", mcp.Required()), mcp.WithString("status", mcp.Required()), mcp.WithSchemaAdditionalProperties(false)),
			Handler: textHandler(func(_ context.Context, req mcp.CallToolRequest) (string, error) {
				return SetStatus(req.GetString("id", ""), req.GetString("status", ""))
			})},
		{Tool: idTool("delete_order", "Deletes an order; the caller may not."),
			Handler: textHandler(func(_ context.Context, req mcp.CallToolRequest) (string, error) {
				return DeleteOrder(req.GetString("id", ""))
			})},
		{Tool: idTool("ship_order", "Ships an order; ord_delivered is already delivered."),
			Handler: textHandler(func(_ context.Context, req mcp.CallToolRequest) (string, error) {
				return ShipOrder(req.GetString("id", ""))
			})},
		{Tool: noArgs("lookup", "Fails the way an outage does."),
			Handler: textHandler(func(context.Context, mcp.CallToolRequest) (string, error) { return Lookup() })},
		{Tool: noArgs("replica", "Fails when a sub-operation is cancelled."),
			Handler: textHandler(func(ctx context.Context, _ mcp.CallToolRequest) (string, error) { return Replica(ctx) })},
		{Tool: noArgs("crash", "Panics the way a bug does."),
			Handler: textHandler(func(context.Context, mcp.CallToolRequest) (string, error) { return Crash() })},
		{Tool: noArgs("quote", "Quotes an exchange rate; the rate limit is always hit."),
			Handler: textHandler(func(context.Context, mcp.CallToolRequest) (string, error) { return Quote() })},
		{Tool: mcp.NewToolWithRawSchema("place_order", "Places an order.", placeOrderSchema),
			Handler: textHandler(func(_ context.Context, req mcp.CallToolRequest) (string, error) {
				items, _ := req.GetArguments()["items"].([]any) // loosely, as many servers read
				return PlaceOrder(len(items)), nil
			})},
		{Tool: mcp.NewTool("slow", mcp.WithDescription("Renders a report; runs out of time."),
			mcp.WithSchemaAdditionalProperties(false), mcp.WithReadOnlyHintAnnotation(true)),
			Handler: textHandler(func(ctx context.Context, _ mcp.CallToolRequest) (string, error) { return Slow(ctx) })},
		{Tool: mcp.NewTool("stock", mcp.WithDescription("Reads the stock; its replica is busy at every other read."),
			mcp.WithSchemaAdditionalProperties(false), mcp.WithReadOnlyHintAnnotation(true)),
			Handler: textHandler(func(context.Context, mcp.CallToolRequest) (string, error) { return Stock() })},
		{Tool: noArgs("charge", "Charges a card; the payment service does not answer in time."),
			Handler: textHandler(func(ctx context.Context, _ mcp.CallToolRequest) (string, error) { return Charge(ctx) })},
	}
}

// forecastTool declares an output schema; its handler is written for
// mcp.NewStructuredToolHandler.
var forecastTool = mcp.NewTool("forecast", mcp.WithDescription("Returns a city's weather; fails for Atlantis."),
	mcp.WithString("city", mcp.Required()), mcp.WithSchemaAdditionalProperties(false), mcp.WithOutputSchema[Forecast]())

// forecastHelperTool is forecast served with mcp-go's own
// mcp.NewStructuredToolHandler, on either mode.
var forecastHelperTool = mcp.NewTool("forecast_helper", mcp.WithDescription("forecast, with mcp-go's own typed helper."),
	mcp.WithString("city", mcp.Required()), mcp.WithSchemaAdditionalProperties(false), mcp.WithOutputSchema[Forecast]())

// exportTool runs only as a task: a client calls it with task parameters,
// then reads its status with tasks/get and its outcome with tasks/result.
var exportTool = mcp.NewTool("export_orders", mcp.WithDescription("Exports the orders as a task; fails the way an outage does."),
	mcp.WithSchemaAdditionalProperties(false), mcp.WithTaskSupport(mcp.TaskSupportRequired))

// exportOrders is the task handler of export_orders. mcp-go runs task tools
// outside every middleware: added with mcpgo.AddTaskTool, its failure is masked
// in the task's status message and in tasks/result as lookup's is.
func exportOrders(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
	_, err := Lookup()
	return nil, err
}

func forecast(_ context.Context, _ mcp.CallToolRequest, args cityArgs) (Forecast, error) {
	return GetForecast(args.City)
}

// mcpGoServer returns the server with every tool, resource and prompt,
// with mcperr installed first, configured with opts, unless bare.
//
// With sdkValidation the server also has mcp-go's own
// server.WithInputSchemaValidation, whose refusals, made before any
// middleware, Install answers as VALIDATION_ERROR too.
func mcpGoServer(logger *slog.Logger, bare, sdkValidation bool, opts ...filter.Option) (*server.MCPServer, error) {
	serverOpts := []server.ServerOption{server.WithToolHandlerMiddleware(timeLimit), server.WithTaskCapabilities(true, true, true)}
	if sdkValidation {
		serverOpts = append(serverOpts, server.WithInputSchemaValidation())
	}
	if bare {
		s := server.NewMCPServer("mcperr-stdio-server", "1.0.0", serverOpts...)
		s.AddTools(mcpGoTools()...)
		s.AddTool(forecastTool, mcp.NewStructuredToolHandler(forecast))
		s.AddTool(forecastHelperTool, mcp.NewStructuredToolHandler(forecast))
		s.AddTaskTool(exportTool, exportOrders)
		addMCPGoResources(s)
		return s, nil
	}
	p, err := newPipeline(logger, opts...)
	if err != nil {
		return nil, err
	}
	s := server.NewMCPServer("mcperr-stdio-server", "1.0.0", serverOpts...)
	if err := mcpgo.Install(s, p); err != nil {
		return nil, err
	}
	for _, t := range mcpGoTools() {
		if err := mcpgo.AddTool(s, t.Tool, t.Handler); err != nil {
			return nil, err
		}
	}
	// mcp-go's own helper, under Install alone: mcperr knows its handler,
	// and masks the failure it turns into a result with the raw text.
	// mcpgo.Structured, as forecast has it, hands mcperr the error itself,
	// so that a ToolError keeps its words.
	s.AddTool(forecastHelperTool, mcp.NewStructuredToolHandler(forecast))
	if err := mcpgo.AddTool(s, forecastTool, mcpgo.Structured(forecast)); err != nil {
		return nil, err
	}
	if err := mcpgo.AddTaskTool(s, exportTool, exportOrders); err != nil { // a task tool: mcperr covers it only so
		return nil, err
	}
	addMCPGoResources(s)
	return s, nil
}

// timeLimit is the server's own time limit for every tool call, given
// before Install and so outermost.
func timeLimit(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, cancel := context.WithTimeout(ctx, CallTimeout)
		defer cancel()
		return next(ctx, req)
	}
}
