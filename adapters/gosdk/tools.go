package gosdk

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/inputschema"
	"github.com/mcperr/mcperr/toolerr"
)

// Tools adds tools to one server, each wrapped with the pipeline, and refuses
// a bad definition with a *toolerr.DefinitionError instead of registering it:
// a tool name the MCP specification does not allow, a name added twice
// through the same Tools, a nil handler or filter, an unusable input schema.
// The SDK alone logs a bad name and registers the tool anyway, and silently
// replaces a tool added twice. Make one with NewTools. A Tools is safe for
// concurrent use.
type Tools struct {
	server *mcp.Server
	cfg    config
	names  toolerr.ToolNames
}

// NewTools returns a Tools for s and installs Middleware on s, configured by
// the same opts, so that arguments the SDK refuses become VALIDATION_ERROR
// results, the errors of typed tools carry their envelope and hint blocks,
// and tools added to s by other means are covered too. Filters given with
// WithFilters run for every tool of s, after each tool's own.
//
// NewTools returns a *toolerr.DefinitionError if s or a filter is nil.
func NewTools(s *mcp.Server, opts ...Option) (*Tools, error) {
	if s == nil {
		return nil, &toolerr.DefinitionError{Code: codes.InvalidOption, Reason: "NewTools needs the *mcp.Server to add tools to"}
	}
	cfg := newConfig(opts)
	p, err := cfg.build()
	if err != nil {
		return nil, err
	}
	s.AddReceivingMiddleware((&middleware{p: p}).wrap)
	return &Tools{server: s, cfg: cfg}, nil
}

// AddTool adds a typed tool to the server of t, like mcp.AddTool, with h
// wrapped as Wrap does and the filters given by WithFilters bound to it.
// The SDK infers the schemas from In and Out unless the tool sets them, and
// checks the arguments against the input schema before h runs.
//
// AddTool returns a *toolerr.DefinitionError, and adds nothing, if the tool
// is nil, its name is not a valid MCP tool name, a tool of that name was
// added through t before, h or a filter is nil, or the SDK cannot use the
// tool's input or output schema (codes.InvalidSchema), where mcp.AddTool
// would panic.
func AddTool[In, Out any](t *Tools, tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts ...Option) error {
	if err := t.checkTool(tool, h == nil); err != nil {
		return err
	}
	p, err := t.toolConfig(opts).build()
	if err != nil {
		return err
	}
	if err := t.names.Add(tool.Name); err != nil {
		return err
	}
	if err := addTyped(t.server, tool, wrap(h, p)); err != nil {
		t.names.Remove(tool.Name)
		return err
	}
	return nil
}

// addTyped is mcp.AddTool, with the SDK's panic for schemas it cannot use
// (inferred from In and Out, or set on the tool) turned into a definition
// error. The SDK panics before it registers anything.
func addTyped[In, Out any](s *mcp.Server, tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &toolerr.DefinitionError{Code: codes.InvalidSchema, Subject: tool.Name, Reason: fmt.Sprint(v)}
		}
	}()
	mcp.AddTool(s, tool, h)
	return nil
}

// AddRawTool adds a raw tool to the server of t, like (*mcp.Server).AddTool,
// with h wrapped as WrapRaw does and the filters given by WithFilters bound
// to it. Unlike the SDK, which hands a raw handler its arguments unchecked,
// the wrapped handler checks them against the tool's input schema first and
// answers VALIDATION_ERROR, without calling h, when they do not fit.
//
// AddRawTool returns a *toolerr.DefinitionError, and adds nothing, if the
// tool is nil, its name is not a valid MCP tool name, a tool of that name
// was added through t before, h or a filter is nil, or the input schema is
// missing, does not have type "object" or cannot be compiled.
func (t *Tools) AddRawTool(tool *mcp.Tool, h mcp.ToolHandler, opts ...Option) error {
	if err := t.checkTool(tool, h == nil); err != nil {
		return err
	}
	schema, err := compileInputSchema(tool)
	if err != nil {
		return err
	}
	p, err := t.toolConfig(opts).build()
	if err != nil {
		return err
	}
	if err := t.names.Add(tool.Name); err != nil {
		return err
	}
	check := func(req *mcp.CallToolRequest) error {
		var args []byte
		if req.Params != nil {
			args = req.Params.Arguments
		}
		if v := schema.CheckJSON(args); v != nil {
			return v
		}
		return nil
	}
	t.server.AddTool(tool, wrapRaw(h, p, check))
	return nil
}

// checkTool refuses a nil tool, an invalid name and a nil handler.
func (t *Tools) checkTool(tool *mcp.Tool, nilHandler bool) error {
	if tool == nil {
		return &toolerr.DefinitionError{Code: codes.InvalidToolName, Reason: "the tool is nil; pass a *mcp.Tool with a name"}
	}
	if err := toolerr.CheckToolName(tool.Name); err != nil {
		return err
	}
	if nilHandler {
		return &toolerr.DefinitionError{Code: codes.NilHandler, Subject: tool.Name, Reason: "the tool has no handler; pass the function that implements it"}
	}
	return nil
}

// toolConfig returns the configuration of one tool: its own options over
// those of t, its filters before those of t.
func (t *Tools) toolConfig(opts []Option) config {
	own := newConfig(opts)
	c := t.cfg
	if own.pipeline != nil {
		c.pipeline = own.pipeline
	}
	c.filters = append(slices.Clip(own.filters), t.cfg.filters...)
	return c
}

// compileInputSchema compiles the input schema of a raw tool, refusing what
// the SDK would panic on.
func compileInputSchema(tool *mcp.Tool) (*inputschema.Schema, error) {
	invalid := func(reason string) error {
		return &toolerr.DefinitionError{Code: codes.InvalidSchema, Subject: tool.Name, Reason: reason}
	}
	if tool.InputSchema == nil {
		return nil, invalid(`the tool has no input schema; for a tool that takes no arguments use {"type":"object"}`)
	}
	doc, err := inputschema.Marshal(tool.InputSchema)
	if err != nil {
		return nil, invalid("the input schema does not marshal to JSON: " + err.Error())
	}
	var root struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(doc, &root); err != nil || root.Type != "object" {
		return nil, invalid(`the input schema must be a JSON object with "type": "object"`)
	}
	s, err := inputschema.Compile(doc)
	if err != nil {
		return nil, invalid(err.Error())
	}
	return s, nil
}
