package gosdk

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/inputschema"
	"github.com/mcperr/mcperr/toolerr"
)

// AddTool adds a typed tool to s, like mcp.AddTool, with the whole mcperr
// contract: it is the drop-in replacement for that one line.
//
//	if err := gosdk.AddTool(s, tool, h, gosdk.WithFilters(f)); err != nil {
//		log.Fatal(err) // a definition error: what to fix
//	}
//
// The tool runs with the configuration Install gave s; if Install was not
// called, AddTool installs mcperr on s with the default configuration, so
// that a later Install is refused. Errors and panics of h are mapped and
// logged once, with the filters given by WithFilters before the global
// ones; arguments the SDK refuses become a VALIDATION_ERROR; every error
// result carries the envelope and hint blocks. As with mcp.AddTool, the SDK
// infers the schemas from In and Out unless the tool sets them.
//
// AddTool returns a *toolerr.DefinitionError, and adds nothing, if s or the
// tool is nil, the tool's name is not a valid MCP tool name, a tool of that
// name was added to s through this package before (codes.DuplicateTool), h
// or a filter is nil, or the SDK cannot use the tool's input or output
// schema (codes.InvalidSchema), where mcp.AddTool would panic. The SDK
// offers no way to list a server's tools, so a tool added to s with
// mcp.AddTool or (*mcp.Server).AddTool directly is not seen: add every tool
// through this package to have every name checked.
func AddTool[In, Out any](s *mcp.Server, tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts ...Option) error {
	c, err := checkTool("AddTool", s, tool, h == nil, opts)
	if err != nil {
		return err
	}
	tt := *tool
	if tt.InputSchema == nil {
		if tt.InputSchema, err = inferInputSchema[In](); err != nil {
			return &toolerr.DefinitionError{Code: codes.InvalidSchema, Subject: tool.Name, Reason: "the input schema cannot be inferred from the argument type: " + err.Error()}
		}
	}
	st, err := ensure(s)
	if err != nil {
		return err
	}
	if err := st.names.Add(tool.Name); err != nil {
		return err
	}
	b := &binding{st: st, fn: "AddTool", filters: c.filters}
	if err := addTyped(s, &tt, wrap(h, b)); err != nil {
		st.names.Remove(tool.Name)
		return err
	}
	st.setTool(tool.Name, &toolEntry{compiled: compileSchema(&st.schemas, tt.InputSchema), filters: c.filters})
	return nil
}

// inferInputSchema returns the input schema the SDK infers for In, so that
// the middleware knows it without asking the server.
func inferInputSchema[In any]() (any, error) {
	rt := reflect.TypeFor[In]()
	if rt == reflect.TypeFor[any]() {
		return &jsonschema.Schema{Type: "object"}, nil
	}
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	return jsonschema.ForType(rt, &jsonschema.ForOptions{})
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

// AddRawTool adds a raw tool to s, like (*mcp.Server).AddTool, with the
// whole mcperr contract, as AddTool does for typed tools. Unlike the SDK,
// which hands a raw handler its arguments unchecked, the wrapped handler
// checks them against the tool's input schema first and answers
// VALIDATION_ERROR, without calling h, when they do not fit, unless
// WithoutArgumentCheck is given here or to Install.
//
// AddRawTool returns a *toolerr.DefinitionError, and adds nothing, for the
// mistakes AddTool refuses, and if the input schema is missing, does not
// have type "object" or cannot be compiled (codes.InvalidSchema).
func AddRawTool(s *mcp.Server, tool *mcp.Tool, h mcp.ToolHandler, opts ...Option) error {
	c, err := checkTool("AddRawTool", s, tool, h == nil, opts)
	if err != nil {
		return err
	}
	schema, err := compileInputSchema(tool)
	if err != nil {
		return err
	}
	st, err := ensure(s)
	if err != nil {
		return err
	}
	if err := st.names.Add(tool.Name); err != nil {
		return err
	}
	var check func(*mcp.CallToolRequest) error
	if !c.noCheck && !st.noCheck {
		check = func(req *mcp.CallToolRequest) error {
			var args []byte
			if req.Params != nil {
				args = req.Params.Arguments
			}
			if v := schema.CheckJSON(args); v != nil {
				return v
			}
			return nil
		}
	}
	if err := addRaw(s, tool, wrapRaw(h, &binding{st: st, fn: "AddRawTool", filters: c.filters}, check)); err != nil {
		st.names.Remove(tool.Name)
		return err
	}
	st.setTool(tool.Name, &toolEntry{compiled: schema, filters: c.filters})
	return nil
}

// addRaw is (*mcp.Server).AddTool, with the SDK's panic for a tool it
// cannot use turned into a definition error. The SDK panics before it
// registers anything.
func addRaw(s *mcp.Server, tool *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &toolerr.DefinitionError{Code: codes.InvalidSchema, Subject: tool.Name, Reason: fmt.Sprint(v)}
		}
	}()
	s.AddTool(tool, h)
	return nil
}

// checkTool refuses a nil server or tool, an invalid name, a nil handler and
// bad options, and returns the tool's configuration.
func checkTool(fn string, s *mcp.Server, tool *mcp.Tool, nilHandler bool, opts []Option) (config, error) {
	if s == nil {
		return config{}, invalidOption(fn + " needs the *mcp.Server to add the tool to")
	}
	if tool == nil {
		return config{}, &toolerr.DefinitionError{Code: codes.InvalidToolName, Reason: "the tool is nil; pass a *mcp.Tool with a name"}
	}
	if err := toolerr.CheckToolName(tool.Name); err != nil {
		return config{}, err
	}
	if nilHandler {
		return config{}, &toolerr.DefinitionError{Code: codes.NilHandler, Subject: tool.Name, Reason: "the tool has no handler; pass the function that implements it"}
	}
	return newConfig(fn, opts)
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
