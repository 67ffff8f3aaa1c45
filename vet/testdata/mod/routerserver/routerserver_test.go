package routerserver

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// A test double, which the migration never rewrites.
func fakeHandler(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errors.New("fake failure")
}

func TestFake(t *testing.T) {
	if _, err := fakeHandler(context.Background(), mcp.CallToolRequest{}); err == nil {
		t.Fatal("want an error")
	}
}
