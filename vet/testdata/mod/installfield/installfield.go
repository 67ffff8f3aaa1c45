// Package installfield holds cases of mcperrinstall where the server is
// kept in a field of a struct, as the Kubernetes server keeps its own.
package installfield

import (
	"context"
	"net/http"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func raw(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, nil
}

// --- positive: the server is kept in a field, tools are added to it
// through a bound method, it is served over HTTP, and never installed ---

type Server struct {
	server *mcp.Server
}

func NewServer() *Server {
	return &Server{server: mcp.NewServer(&mcp.Implementation{Name: "k8s", Version: "1"}, nil)}
}

func (s *Server) reload(tools []*mcp.Tool) {
	commit(tools, s.server.AddTool) // want `a tool is added with the SDK's own AddTool to a server mcperr is not installed on`
}

func commit(tools []*mcp.Tool, add func(*mcp.Tool, mcp.ToolHandler)) {
	for _, t := range tools {
		add(t, raw)
	}
}

func (s *Server) Serve(ctx context.Context) error {
	return s.server.Run(ctx, &mcp.StdioTransport{})
}

func (s *Server) Handler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.server }, nil)
}

// --- negatives ---

// installed is the same server with mcperr installed on its field.
type installed struct {
	server *mcp.Server
}

func newInstalled(p *filter.Pipeline) (*installed, error) {
	s := &installed{server: mcp.NewServer(&mcp.Implementation{Name: "k8s", Version: "1"}, nil)}
	if err := gosdk.Install(s.server, p); err != nil {
		return nil, err
	}
	s.server.AddTool(&mcp.Tool{Name: "raw"}, raw)
	return s, nil
}

// handedOn gives the server kept in its field to code of the module the
// analysis does not follow: it may install mcperr.
type handedOn struct {
	server *mcp.Server
}

func newHandedOn(setup func(*mcp.Server)) *handedOn {
	s := &handedOn{server: mcp.NewServer(&mcp.Implementation{Name: "k8s", Version: "1"}, nil)}
	setup(s.server)
	s.server.AddTool(&mcp.Tool{Name: "raw"}, raw)
	return s
}

// Exported is a field other packages may read: not followed.
type Exported struct {
	Server *mcp.Server
}

func newExported() *Exported {
	e := &Exported{Server: mcp.NewServer(&mcp.Implementation{Name: "k8s", Version: "1"}, nil)}
	e.Server.AddTool(&mcp.Tool{Name: "raw"}, raw)
	return e
}

var _, _, _ = newInstalled, newHandedOn, newExported
