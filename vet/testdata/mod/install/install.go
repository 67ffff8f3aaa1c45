// Package install holds cases of mcperrinstall.
package install

import (
	"context"
	"net/http"
	"net/http/httptest"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"
	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type in struct{ ID string }
type out struct{ Name string }

func lookup(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, out, error) {
	return nil, out{}, nil
}

func raw(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, nil
}

func mcpgoHandler(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
	return nil, nil
}

// --- positives ---

func gosdkGeneric(ctx context.Context) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, lookup) // want `a tool is added with the SDK's own AddTool to a server mcperr is not installed on.*gosdk.Install`
	return s.Run(ctx, &mcp.StdioTransport{})
}

func gosdkRaw(ctx context.Context) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "raw"}, raw) // want `a tool is added with the SDK's own AddTool.*gosdk.Install`
	return s.Run(ctx, &mcp.StdioTransport{})
}

func mcpgoServer() error {
	s := server.NewMCPServer("orders", "1", server.WithToolCapabilities(true))
	s.AddTool(mcpgomcp.NewTool("lookup"), mcpgoHandler) // want `a tool is added with the SDK's own AddTool.*mcpgo.Install`
	return server.ServeStdio(s)
}

// --- negatives ---

func gosdkInstalled(ctx context.Context) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	if err := gosdk.Install(s, nil); err != nil {
		return err
	}
	mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, lookup)
	return s.Run(ctx, &mcp.StdioTransport{})
}

func mcpgoInstalled() error {
	s := server.NewMCPServer("orders", "1")
	if err := mcpgo.Install(s, nil); err != nil {
		return err
	}
	s.AddTool(mcpgomcp.NewTool("lookup"), mcpgoHandler)
	return server.ServeStdio(s)
}

// The server escapes to a function of the package, which may install mcperr.
func escapesToHelper(ctx context.Context) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	setup(s)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, lookup)
	return s.Run(ctx, &mcp.StdioTransport{})
}

func setup(s *mcp.Server) { _ = gosdk.Install(s, nil) }

// The server is returned: the caller may install mcperr.
func returned() *server.MCPServer {
	s := server.NewMCPServer("orders", "1")
	s.AddTool(mcpgomcp.NewTool("lookup"), mcpgoHandler)
	return s
}

// The server is captured by a closure.
func captured() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, lookup)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

// The server is given only to mcp-go's servertest.NewTestServer, which
// serves a test.
func testServer() *httptest.Server {
	s := server.NewMCPServer("orders", "1")
	s.AddTool(mcpgomcp.NewTool("lookup"), mcpgoHandler)
	return servertest.NewTestServer(s)
}

// The server is stored.
var global *mcp.Server

func stored() {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "raw"}, raw)
	global = s
}

// No tool is added.
func noTools(ctx context.Context) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	return s.Run(ctx, &mcp.StdioTransport{})
}

// mcperr's own AddTool refuses a server without Install at start-up.
func adapterAddTool() error {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	return gosdk.AddTool(s, &mcp.Tool{Name: "lookup"}, lookup)
}

// A handler wrapped by gosdk.Wrap on a server without Install: Wrap alone is
// the handler unchanged, so the server is unguarded.
func wrapped(ctx context.Context) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, gosdk.Wrap(lookup)) // want `a tool is added with the SDK's own AddTool.*gosdk.Install`
	s.AddTool(&mcp.Tool{Name: "raw"}, raw)
	return s.Run(ctx, &mcp.StdioTransport{})
}

// A handler wrapped by mcpgo.Wrap on a server without Install: as
// gosdk.Wrap's, the handler unchanged.
func mcpgoWrapped() error {
	s := server.NewMCPServer("orders", "1")
	s.AddTool(mcpgomcp.NewTool("lookup"), mcpgo.Wrap(mcpgoHandler)) // want `a tool is added with the SDK's own AddTool.*mcpgo.Install`
	return server.ServeStdio(s)
}

// Tools added with AddTools, mcp-go's variadic form.
func mcpgoAddTools() error {
	s := server.NewMCPServer("orders", "1")
	s.AddTools(server.ServerTool{Tool: mcpgomcp.NewTool("lookup"), Handler: mcpgoHandler}) // want `a tool is added with the SDK's own AddTool.*mcpgo.Install`
	return server.ServeStdio(s)
}

func mcpgoAddToolsWrapped() error {
	s := server.NewMCPServer("orders", "1")
	s.AddTools(server.ServerTool{Tool: mcpgomcp.NewTool("lookup"), Handler: mcpgo.Wrap(mcpgoHandler)}) // want `a tool is added with the SDK's own AddTool.*mcpgo.Install`
	return server.ServeStdio(s)
}
