package throughput

import (
	"context"
	"time"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// Shape is a form of a failure's answer that a bare server sends, built by
// its handler, so that what the bytes of mcperr's answer cost the SDKs is
// told apart from what mcperr's code costs. A rig with a shape serves the
// workload's failure (ToolError or Masked) in that form, with mcperr's
// texts and envelope, made once when the server starts.
type Shape string

// The shapes.
const (
	// NoShape is the workload as it is: the SDK's own answer when bare,
	// mcperr's when installed.
	NoShape Shape = ""
	// ShapeBlocks is mcperr's text blocks (the message, then the facts),
	// without the envelope: everything the model reads.
	ShapeBlocks Shape = "blocks"
	// ShapeEnvelope is the message block alone, with mcperr's envelope in
	// _meta.
	ShapeEnvelope Shape = "envelope"
	// ShapeSlim is mcperr's text blocks with an envelope that holds no
	// field the result holds already (error, message) and no timestamp.
	ShapeSlim Shape = "slim"
	// ShapeFull is mcperr's answer as it sends it: the text blocks and the
	// envelope.
	ShapeFull Shape = "full"
)

// Shapes lists the shapes in the order they are reported.
var Shapes = []Shape{ShapeBlocks, ShapeEnvelope, ShapeSlim, ShapeFull}

// shapedTool is the name of the tool that answers workload w in shape s.
func shapedTool(w Workload, s Shape) string {
	if s == NoShape {
		return string(w)
	}
	return string(w) + "_" + string(s)
}

// shaped is the answer of one shape: its text blocks and its _meta.
type shaped struct {
	texts []string
	meta  map[string]any
}

// shapes returns the answer of workload w in each shape, made by p from
// the error the workload's tool returns under mcperr.
func shapes(p *filter.Pipeline, w Workload) map[Shape]shaped {
	err := errSecret
	if w == ToolError {
		err = toolerr.New(ToolErrorText)
	}
	f := p.Handle(context.Background(), filter.Call{Tool: string(w)}, err)
	env := f.Envelope
	env.Timestamp = typicalTimestamp()
	slim := map[string]any{"version": env.Version, "code": env.Code, "category": env.Category, "retryable": env.Retryable, "requestId": env.RequestID}
	if env.Ref != "" {
		slim["ref"] = env.Ref
	}
	full := map[string]any{filter.MetaKey: env}
	return map[Shape]shaped{
		ShapeBlocks:   {texts: f.Texts},
		ShapeEnvelope: {texts: f.Texts[:1], meta: full},
		ShapeSlim:     {texts: f.Texts, meta: map[string]any{filter.MetaKey: slim}},
		ShapeFull:     {texts: f.Texts, meta: full},
	}
}

// typicalTimestamp returns a timestamp as the pipeline writes one
// (RFC 3339 with nanoseconds, trailing zeros trimmed), of the length most
// of them have on this machine: the shapes are built once, and one whose
// fraction happened to end in zeros would be bytes shorter than mcperr's
// answers on average.
func typicalTimestamp() string {
	byLen := map[int]string{}
	count := map[int]int{}
	best := 0
	for range 64 {
		ts := time.Now().UTC().Format(time.RFC3339Nano)
		byLen[len(ts)] = ts
		if count[len(ts)]++; count[len(ts)] > count[best] {
			best = len(ts)
		}
	}
	return byLen[best]
}

// addShapedGoSDK adds to s a tool for each failing workload and shape,
// answering with the shaped result.
func addShapedGoSDK(s *mcp.Server, p *filter.Pipeline) {
	for _, w := range []Workload{ToolError, Masked} {
		for shape, a := range shapes(p, w) {
			content := make([]mcp.Content, len(a.texts))
			for i, t := range a.texts {
				content[i] = &mcp.TextContent{Text: t}
			}
			mcp.AddTool(s, &mcp.Tool{Name: shapedTool(w, shape)}, func(context.Context, *mcp.CallToolRequest, orderIn) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Meta: a.meta, Content: content, IsError: true}, nil, nil
			})
		}
	}
}

// addShapedMCPGo adds to s a tool for each failing workload and shape,
// answering with the shaped result.
func addShapedMCPGo(s *mcpgoserver.MCPServer, p *filter.Pipeline, tool func(Workload) mcpgomcp.Tool) {
	for _, w := range []Workload{ToolError, Masked} {
		for shape, a := range shapes(p, w) {
			content := make([]mcpgomcp.Content, len(a.texts))
			for i, t := range a.texts {
				content[i] = mcpgomcp.NewTextContent(t)
			}
			var meta *mcpgomcp.Meta
			if a.meta != nil {
				meta = &mcpgomcp.Meta{AdditionalFields: a.meta}
			}
			s.AddTool(tool(Workload(shapedTool(w, shape))), func(context.Context, mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
				return &mcpgomcp.CallToolResult{Result: mcpgomcp.Result{Meta: meta}, Content: content, IsError: true}, nil
			})
		}
	}
}
