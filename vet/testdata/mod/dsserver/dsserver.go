// Package dsserver is an MCP server on mcp-go in front of a dashboards
// API, written the way the public servers mcperrvet was measured on are
// written: most tools go through a small framework of the server's own
// (MustTool), whose handler turns every error of a tool into an error
// result in one place, as Grafana's does; the others build their error
// results with the helpers of another package of the module (tooling), as
// GitHub's and Terraform's do; arguments are checked in a method whose
// errors the tool wraps with its name; and messages meant for the model are
// plain errors.
//
// Its command has installed mcperr in report-only mode, the first step of
// adoption; mcperrvet -fix is the second.
package dsserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"example.com/vettest/dsserver/tooling"
)

// Client calls the dashboards API.
type Client struct {
	URL   string
	Token string
	HTTP  *http.Client
}

// APIError is a status the API refused a request with.
type APIError struct {
	Status int
	URL    string
	Body   string
}

func (e *APIError) Error() string { return fmt.Sprintf("GET %s: %d %s", e.URL, e.Status, e.Body) }

func (c *Client) get(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return &APIError{Status: resp.StatusCode, URL: req.URL.String(), Body: string(body)}
	}
	return json.Unmarshal(body, out)
}

type clientKey struct{}

func clientFrom(ctx context.Context) *Client { return ctx.Value(clientKey{}).(*Client) }

var logger = log.New(io.Discard, "dsserver: ", 0)

// Tool is a tool of the server's framework.
type Tool struct {
	Tool    mcp.Tool
	Handler server.ToolHandlerFunc
}

// MustTool makes a tool of fn: the call's arguments decoded into T, the
// result sent as JSON, and every error turned into an error result here.
func MustTool[T, R any](name, description string, fn func(context.Context, T) (R, error), opts ...mcp.ToolOption) Tool {
	handler := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args T
		if err := req.BindArguments(&args); err != nil {
			return nil, fmt.Errorf("invalid arguments: %w", err)
		}
		out, err := fn(ctx, args)
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.TextContent{Type: "text", Text: err.Error()}}}, nil // want: leak
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(string(b)), nil
	}
	return Tool{Tool: mcp.NewTool(name, append([]mcp.ToolOption{mcp.WithDescription(description)}, opts...)...), Handler: handler}
}

// Datasource is a datasource of the API.
type Datasource struct {
	UID  string `json:"uid"`
	Type string `json:"type"`
}

// GetDatasourceParams are get_datasource's arguments.
type GetDatasourceParams struct {
	UID string `json:"uid"`
}

func getDatasource(ctx context.Context, args GetDatasourceParams) (*Datasource, error) {
	if args.UID == "" {
		return nil, errors.New("uid is required") // want: masked
	}
	var ds Datasource
	if err := clientFrom(ctx).get(ctx, "/api/datasources/uid/"+url.PathEscape(args.UID), &ds); err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound {
			return nil, fmt.Errorf("datasource with UID '%s' not found. Please check if the datasource exists and is accessible", args.UID) // want: masked
		}
		return nil, fmt.Errorf("get datasource by uid %s: %w", args.UID, err)
	}
	return &ds, nil
}

// QueryParams are query_prometheus's arguments.
type QueryParams struct {
	DatasourceUID string `json:"datasourceUid"`
	Expr          string `json:"expr"`
	Start         string `json:"start"`
}

func (p QueryParams) validate() error {
	if p.Expr == "" {
		return errors.New("expr is required") // want: masked
	}
	return nil
}

// Sample is one value of a query's result.
type Sample struct {
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
}

func queryPrometheus(ctx context.Context, args QueryParams) ([]Sample, error) {
	if err := args.validate(); err != nil {
		return nil, fmt.Errorf("query_prometheus: %w", err)
	}
	if args.Start != "" {
		if _, err := time.Parse(time.RFC3339, args.Start); err != nil {
			// A parser's text: not a message written for the model.
			return nil, fmt.Errorf("parsing start time: %w", err)
		}
	}
	if _, err := getDatasource(ctx, GetDatasourceParams{UID: args.DatasourceUID}); err != nil {
		return nil, fmt.Errorf("getting backend: %w", err)
	}
	var samples []Sample
	if err := clientFrom(ctx).get(ctx, "/api/ds/query?expr="+url.QueryEscape(args.Expr), &samples); err != nil {
		return nil, fmt.Errorf("querying Prometheus: %w", err)
	}
	return samples, nil
}

// ManageRulesParams are manage_rules's arguments.
type ManageRulesParams struct {
	Operation string `json:"operation"`
	UID       string `json:"uid"`
}

// Rule is an alert rule.
type Rule struct {
	UID   string `json:"uid"`
	Title string `json:"title"`
}

func manageRules(ctx context.Context, args ManageRulesParams) ([]Rule, error) {
	var rules []Rule
	switch args.Operation {
	case "list":
		if err := clientFrom(ctx).get(ctx, "/api/rules", &rules); err != nil {
			return nil, fmt.Errorf("listing rules: %w", err)
		}
	case "get":
		if args.UID == "" {
			return nil, fmt.Errorf("uid is required for 'get' operation") // want: masked
		}
		var r Rule
		if err := clientFrom(ctx).get(ctx, "/api/rules/"+url.PathEscape(args.UID), &r); err != nil {
			return nil, fmt.Errorf("getting rule %s: %w", args.UID, err)
		}
		rules = append(rules, r)
	default:
		return nil, fmt.Errorf("unknown operation %q, must be one of: list, get", args.Operation) // want: masked
	}
	return rules, nil
}

// Hit is a dashboard a search found.
type Hit struct {
	UID   string `json:"uid"`
	Title string `json:"title"`
}

func searchDashboards(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	query, err := req.RequireString("query")
	if err != nil {
		return tooling.NewToolResultError(err.Error()), nil // safe: mcp-go's own text, naming the argument
	}
	var hits []Hit
	if err := clientFrom(ctx).get(ctx, "/api/search?query="+url.QueryEscape(query), &hits); err != nil {
		return tooling.NewToolResultError(fmt.Sprintf("failed to search dashboards: %s", err)), nil // want: leak
	}
	b, err := json.Marshal(hits)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(string(b)), nil
}

// Silence is an alert silence.
type Silence struct {
	ID    string `json:"id"`
	State string `json:"state"`
}

func listSilences(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	state := req.GetString("state", "active")
	if state != "active" && state != "expired" {
		return tooling.ToolErrorf(logger, "invalid state: %s - must be 'active' or 'expired'", state) // safe: the tool's own argument
	}
	var silences []Silence
	if err := clientFrom(ctx).get(ctx, "/api/silences?state="+state, &silences); err != nil {
		return tooling.ToolErrorf(logger, "failed to list silences: %v", err) // want: leak
	}
	b, err := json.Marshal(silences)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(string(b)), nil
}

// New returns the server, calling the API with c.
func New(c *Client) *server.MCPServer {
	s := server.NewMCPServer("dsserver", "1.4.0", server.WithToolHandlerMiddleware(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return next(context.WithValue(ctx, clientKey{}, c), req)
		}
	}))
	for _, t := range []Tool{
		MustTool("get_datasource", "Gets a datasource by its UID.", getDatasource,
			mcp.WithString("uid", mcp.Description("The datasource's UID."))),
		MustTool("query_prometheus", "Runs a PromQL query.", queryPrometheus,
			mcp.WithString("datasourceUid", mcp.Required()), mcp.WithString("expr"), mcp.WithString("start")),
		MustTool("manage_rules", "Lists alert rules, or gets one.", manageRules,
			mcp.WithString("operation", mcp.Required()), mcp.WithString("uid")),
	} {
		s.AddTool(t.Tool, t.Handler)
	}
	s.AddTool(mcp.NewTool("search_dashboards", mcp.WithDescription("Searches dashboards by title."), mcp.WithString("query")), searchDashboards)
	s.AddTool(mcp.NewTool("list_silences", mcp.WithDescription("Lists alert silences."), mcp.WithString("state")), listSilences)
	return s
}
