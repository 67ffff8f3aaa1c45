// Package sdktext holds positive and negative cases of mcperrsdktext.
package sdktext

import (
	"context"
	"errors"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mcperr/mcperr/toolerr"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// --- mcp-go positives ---

func resultError(err error) *mcpgo.CallToolResult { // want resultError:`sdkHelper`
	return mcpgo.NewToolResultError(err.Error()) // want `mcp.NewToolResultError text is built from an error's text`
}

func resultErrorVar(err error) *mcpgo.CallToolResult { // want resultErrorVar:`sdkHelper`
	text := "query failed: " + err.Error()
	return mcpgo.NewToolResultError(text) // want `mcp.NewToolResultError text`
}

func resultErrorFromErr(err error) *mcpgo.CallToolResult { // want resultErrorFromErr:`sdkHelper`
	return mcpgo.NewToolResultErrorFromErr("query failed", err) // want `mcp.NewToolResultErrorFromErr appends the error's text`
}

func resultErrorf(err error) *mcpgo.CallToolResult { // want resultErrorf:`sdkHelper`
	return mcpgo.NewToolResultErrorf("query %d failed: %v", 3, err) // want `mcp.NewToolResultErrorf formats an error's text`
}

// db stands for a database client, whose errors hold whatever the driver
// says: SQL, hosts, credentials.
var db interface {
	Query(context.Context, string) (string, error)
}

func query(ctx context.Context, q string) (string, error) { return db.Query(ctx, q) }

func handler(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	row, err := query(ctx, req.GetString("id", ""))
	if err != nil {
		return mcpgo.NewToolResultError(fmt.Sprintf("query failed: %v", err)), nil // want `mcp.NewToolResultError text`
	}
	return mcpgo.NewToolResultText(row), nil
}

// In a handler returning (*CallToolResult, error), the fix returns the
// message as a ToolError with the error as its cause.
func fromErrHandler(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	row, err := query(ctx, req.GetString("id", ""))
	if err != nil {
		return mcpgo.NewToolResultErrorFromErr("The query failed; try again.", err), nil // want `mcp.NewToolResultErrorFromErr appends`
	}
	return mcpgo.NewToolResultText(row), nil
}

// No fix where the message itself holds error text.
func fromErrHandlerTaintedMessage(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	_, err := query(ctx, "")
	if err != nil {
		return mcpgo.NewToolResultErrorFromErr("failed: "+err.Error(), err), nil // want `mcp.NewToolResultErrorFromErr appends`
	}
	return nil, toolerr.New("Nothing found.")
}

// --- go-sdk positives ---

func rpcError(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()} // want `jsonrpc.Error Message is built from an error's text`
}

func rpcErrorValue(err error) jsonrpc.Error {
	return jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad: " + err.Error()} // want `jsonrpc.Error Message`
}

func toolResult(err error) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: "failed: " + err.Error()}}, // want `a CallToolResult with IsError set carries an error's text`
	}, nil, nil
}

func gathered(ctx context.Context, ids []string) *mcpgo.CallToolResult {
	var failed []string
	for _, id := range ids {
		if _, err := query(ctx, id); err != nil {
			failed = append(failed, id+": "+err.Error())
		}
	}
	if len(failed) > 0 {
		return mcpgo.NewToolResultError(fmt.Sprintf("%d failed:\n%s", len(failed), strings.Join(failed, "\n"))) // want `mcp.NewToolResultError text`
	}
	return nil
}

// A helper that builds the error result from its text.
func errorResult(text string) *mcpgo.CallToolResult { return mcpgo.NewToolResultError(text) } // want errorResult:`sdkHelper`

func viaResultHelper(err error) *mcpgo.CallToolResult { // want viaResultHelper:`sdkHelper`
	return errorResult("query failed: " + err.Error()) // want `through errorResult: mcp.NewToolResultError text`
}

func viaResultHelperClean(id string) *mcpgo.CallToolResult { // want viaResultHelperClean:`sdkHelper`
	return errorResult("Order " + id + " was not found.")
}

// --- negatives ---

func accessorError(req mcpgo.CallToolRequest) *mcpgo.CallToolResult {
	if _, err := req.RequireString("id"); err != nil {
		// mcp-go's accessor errors name the argument only.
		return mcpgo.NewToolResultError(err.Error())
	}
	return nil
}

func gatheredIDs(ctx context.Context, ids []string) *mcpgo.CallToolResult { // want gatheredIDs:`sdkHelper`
	var failed []string
	for _, id := range ids {
		if _, err := query(ctx, id); err != nil {
			failed = append(failed, id)
		}
	}
	if len(failed) > 0 {
		return mcpgo.NewToolResultError("These orders failed: " + strings.Join(failed, ", "))
	}
	return nil
}

func cancelled(ctx context.Context) (*mcpgo.CallToolResult, error) {
	if err := ctx.Err(); err != nil {
		// The text of ctx.Err() is fixed by the standard library.
		return mcpgo.NewToolResultError(fmt.Sprintf("cancelled: %v", err)), nil
	}
	return nil, nil
}

func resultErrorConst(err error) *mcpgo.CallToolResult {
	_ = err
	return mcpgo.NewToolResultError("The query failed; try again.")
}

func resultErrorID(id string) *mcpgo.CallToolResult { // want resultErrorID:`sdkHelper`
	return mcpgo.NewToolResultErrorf("Order %s was not found.", id)
}

func resultErrorFromConstErr() *mcpgo.CallToolResult {
	return mcpgo.NewToolResultErrorFromErr("query failed", errors.New("the table is locked"))
}

func resultErrorFromNil() *mcpgo.CallToolResult {
	return mcpgo.NewToolResultErrorFromErr("query failed", nil)
}

func rpcErrorConst() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the cursor is not valid"}
}

func successText(err error) *mcp.CallToolResult {
	// Not an error result: the text is the tool's answer (checking what the
	// text says is not this analyzer's job).
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "last error: " + err.Error()}}}
}

func toolResultConst(id string) *mcp.CallToolResult { // want toolResultConst:`sdkHelper`
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "Order " + id + " is locked."}}}
}

func setError(err error) *mcp.CallToolResult {
	// SetError marks the result for mcperr, which maps the error.
	res := &mcp.CallToolResult{}
	res.SetError(err)
	return res
}

// --- results built by hand, mcp-go's and with IsError from a condition ---

func mcpgoLiteral(err error) *mcpgo.CallToolResult { // want mcpgoLiteral:`sdkHelper`
	return &mcpgo.CallToolResult{
		IsError: true,
		Content: []mcpgo.Content{mcpgo.TextContent{Type: "text", Text: "failed: " + err.Error()}}, // want `a CallToolResult with IsError set carries an error's text`
	}
}

func mcpgoNewTextContent(err error) *mcpgo.CallToolResult { // want mcpgoNewTextContent:`sdkHelper`
	return &mcpgo.CallToolResult{
		IsError: true,
		Content: []mcpgo.Content{mcpgo.NewTextContent(err.Error())}, // want `a CallToolResult with IsError set carries an error's text`
	}
}

// converter is the one function through which a server turns every
// error into a result: IsError is the condition, the text the error's.
func converter(v any, err error) *mcpgo.CallToolResult { // want converter:`sdkHelper`
	text := fmt.Sprint(v)
	if err != nil {
		text = err.Error()
	}
	return &mcpgo.CallToolResult{
		IsError: err != nil,
		Content: []mcpgo.Content{mcpgo.TextContent{Type: "text", Text: text}}, // want `a CallToolResult with IsError set carries an error's text`
	}
}

func sdkCondition(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: err != nil, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}} // want `a CallToolResult with IsError set carries an error's text`
}

func mcpgoNotAnError(err error) *mcpgo.CallToolResult {
	// IsError false: a success that happens to quote an error is not
	// reported.
	return &mcpgo.CallToolResult{IsError: false, Content: []mcpgo.Content{mcpgo.NewTextContent("retried after " + err.Error())}}
}

func mcpgoFixedText(id string) *mcpgo.CallToolResult { // want mcpgoFixedText:`sdkHelper`
	return &mcpgo.CallToolResult{IsError: true, Content: []mcpgo.Content{mcpgo.NewTextContent("Order " + id + " is locked.")}}
}

// --- errors whose text is the server's own, for the model ---

// requiredParam's errors are made of constants and its own arguments: a
// message meant for the model, not an internal error's text.
func requiredParam(args map[string]any, name string) (string, error) {
	v, ok := args[name]
	if !ok {
		return "", fmt.Errorf("missing required parameter: %s", name)
	}
	s, ok := v.(string)
	if !ok {
		return "", errors.New("parameter " + name + " must be a string")
	}
	return s, nil
}

// optionalParam is requiredParam for any type, as servers write it.
func optionalParam[T any](args map[string]any, name string) (T, error) {
	var zero T
	v, ok := args[name]
	if !ok {
		return zero, nil
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("parameter %s is not of type %T", name, zero)
	}
	return t, nil
}

func ownMessages(args map[string]any) *mcpgo.CallToolResult {
	owner, err := requiredParam(args, "owner")
	if err != nil {
		return mcpgo.NewToolResultError(err.Error())
	}
	page, err := optionalParam[float64](args, "page")
	if err != nil {
		return mcpgo.NewToolResultError(err.Error())
	}
	row, err := query(context.Background(), fmt.Sprint(owner, page))
	if err != nil {
		return mcpgo.NewToolResultError(err.Error()) // want `mcp.NewToolResultError text`
	}
	return mcpgo.NewToolResultText(row)
}
