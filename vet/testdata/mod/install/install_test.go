package install

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A test builds a bare server on purpose, and serves it to its client:
// mcperrinstall says nothing in test files.
func TestBare(t *testing.T) {
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, lookup)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	if _, err := c.Connect(ctx, ct, nil); err != nil {
		t.Fatal(err)
	}
}
