package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
)

type divideArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type idArgs struct {
	ID string `json:"id"`
}

type statusArgs struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

type cityArgs struct {
	City string `json:"city"`
}

// textResult returns a successful result with one text block.
func textResult(text string, err error) (*mcp.CallToolResult, any, error) {
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

// goSDKServer returns the server with every tool, resource and prompt,
// with mcperr installed first, configured with opts, unless bare.
func goSDKServer(logger *slog.Logger, bare bool, opts ...filter.Option) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcperr-stdio-server", Version: "1.0.0"}, nil)
	if !bare {
		p, err := newPipeline(logger, opts...)
		if err != nil {
			return nil, err
		}
		if err := gosdk.Install(s, p); err != nil {
			return nil, err
		}
	}
	var firstErr error
	register := func(err error) {
		if firstErr == nil {
			firstErr = err
		}
	}
	register(addGoSDKTool(s, bare, &mcp.Tool{Name: "divide", Description: "Divides a by b."},
		func(_ context.Context, _ *mcp.CallToolRequest, in divideArgs) (*mcp.CallToolResult, any, error) {
			q, err := Divide(in.A, in.B)
			return textResult(strconv.FormatFloat(q, 'g', -1, 64), err)
		}))
	register(addGoSDKTool(s, bare, &mcp.Tool{Name: "get_order", Description: "Returns an order; only ord_1 exists."},
		func(_ context.Context, _ *mcp.CallToolRequest, in idArgs) (*mcp.CallToolResult, any, error) {
			return textResult(GetOrder(in.ID))
		}))
	register(addGoSDKTool(s, bare, &mcp.Tool{Name: "set_status", Description: "Sets an order's status."},
		func(_ context.Context, _ *mcp.CallToolRequest, in statusArgs) (*mcp.CallToolResult, any, error) {
			return textResult(SetStatus(in.ID, in.Status))
		}))
	register(addGoSDKTool(s, bare, &mcp.Tool{Name: "delete_order", Description: "Deletes an order; the caller may not."},
		func(_ context.Context, _ *mcp.CallToolRequest, in idArgs) (*mcp.CallToolResult, any, error) {
			return textResult(DeleteOrder(in.ID))
		}))
	register(addGoSDKTool(s, bare, &mcp.Tool{Name: "ship_order", Description: "Ships an order; ord_delivered is already delivered."},
		func(_ context.Context, _ *mcp.CallToolRequest, in idArgs) (*mcp.CallToolResult, any, error) {
			return textResult(ShipOrder(in.ID))
		}))
	register(addGoSDKTool(s, bare, &mcp.Tool{Name: "lookup", Description: "Fails the way an outage does."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return textResult(Lookup())
		}))
	register(addGoSDKTool(s, bare, &mcp.Tool{Name: "replica", Description: "Fails when a sub-operation is cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return textResult(Replica(ctx))
		}))
	register(addGoSDKTool(s, bare, &mcp.Tool{Name: "crash", Description: "Panics the way a bug does."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return textResult(Crash())
		}))
	register(addGoSDKTool(s, bare, &mcp.Tool{Name: "quote", Description: "Quotes an exchange rate; the rate limit is always hit."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return textResult(Quote())
		}))
	register(addGoSDKTool(s, bare, &mcp.Tool{Name: "slow", Description: "Renders a report; runs out of time.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return textResult(Slow(ctx))
		}))
	register(addGoSDKTool(s, bare, &mcp.Tool{Name: "stock", Description: "Reads the stock; its replica is busy at every other read.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return textResult(Stock())
		}))
	register(addGoSDKTool(s, bare, &mcp.Tool{Name: "charge", Description: "Charges a card; the payment service does not answer in time."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return textResult(Charge(ctx))
		}))
	register(addGoSDKTool(s, bare, &mcp.Tool{Name: "forecast", Description: "Returns a city's weather; fails for Atlantis."},
		func(_ context.Context, _ *mcp.CallToolRequest, in cityArgs) (*mcp.CallToolResult, Forecast, error) {
			f, err := GetForecast(in.City)
			return nil, f, err
		}))
	placeOrder := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Items []json.RawMessage }
		_ = json.Unmarshal(req.Params.Arguments, &in) // loosely, as many servers read
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: PlaceOrder(len(in.Items))}}}, nil
	}
	placeOrderTool := &mcp.Tool{Name: "place_order", Description: "Places an order.", InputSchema: placeOrderSchema}
	if bare {
		s.AddTool(placeOrderTool, placeOrder)
	} else {
		register(gosdk.AddRawTool(s, placeOrderTool, placeOrder))
	}
	addGoSDKResources(s)
	// The server's own time limit for every tool call, outermost.
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, CallTimeout)
				defer cancel()
			}
			return next(ctx, method, req)
		}
	})
	return s, firstErr
}

// addGoSDKTool adds a tool through mcperr, or straight to the SDK when bare.
func addGoSDKTool[In, Out any](s *mcp.Server, bare bool, tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) error {
	if bare {
		mcp.AddTool(s, tool, h)
		return nil
	}
	return gosdk.AddTool(s, tool, h)
}
