// Package maskedremote returns, from its handlers, the errors of another
// package of the module that hold messages for the model.
package maskedremote

import (
	"context"
	"fmt"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"example.com/vettest/maskedlib"
)

var client = &maskedlib.Client{}

func getDatasource(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	ds, err := client.Datasource(req.GetString("uid", "")) // want `the errors of maskedlib.Datasource include a message for the model returned as a plain error \("datasource with UID %s not found", at maskedlib.go:19\)`
	if err != nil {
		return nil, err
	}
	if err := maskedlib.Check(req.GetString("name", "")); err != nil { // want `the errors of maskedlib.Check include a message`
		return nil, fmt.Errorf("get datasource: %w", err)
	}
	if err := maskedlib.Validate(req.GetString("name", "")); err != nil {
		return nil, err // a constant message of another package: not reported
	}
	if _, err := maskedlib.Read(ds); err != nil {
		return nil, err // a library's error: masked, as it should be
	}
	if err := maskedlib.Check(ds); err != nil {
		return nil, err // given no argument of the tool's: not reported
	}
	return mcpgo.NewToolResultText(ds), nil
}
