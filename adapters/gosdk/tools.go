package gosdk

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/inputschema"
	"github.com/mcperr/mcperr/internal/toolname"
)

// AddTool is the drop-in replacement for mcp.AddTool, on a server where
// Install was called first: it adds the typed tool, whose failures, and
// arguments the SDK refuses, the middleware handles with the tool's options
// (filter.WithFilters, filter.WithReportOnly, ...), which apply over those
// of filter.ForTool.
//
//	if err := gosdk.AddTool(s, tool, h, filter.WithFilters(f)); err != nil {
//		log.Fatal(err) // a definition error: what to fix
//	}
//
// As with mcp.AddTool, the SDK infers the schemas from In and Out unless
// the tool sets them. AddTool returns a *codes.DefinitionError, and adds
// nothing, if s or the tool is nil, Install was not called on s
// (codes.NotInstalled), the tool's name is not a valid MCP tool name, a
// tool of that name was added to s through this package before
// (codes.DuplicateTool; one added with mcp.AddTool directly is not seen),
// h or an option is nil or misdefined, or the SDK cannot use the tool's
// input or output schema (codes.InvalidSchema), where mcp.AddTool would
// panic.
func AddTool[In, Out any](s *mcp.Server, tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts ...filter.ToolOption) error {
	st, err := checkTool("AddTool", s, tool, h == nil, opts)
	if err != nil {
		return err
	}
	tt := *tool
	if tt.InputSchema == nil {
		if tt.InputSchema, err = inferInputSchema[In](); err != nil {
			st.tools.Delete(tool.Name)
			return invalidSchema(tool.Name, "the input schema cannot be inferred from the argument type: "+err.Error())
		}
	}
	// The handler is registered as it is: the middleware handles its failures.
	if err := st.register(tool.Name, func() { mcp.AddTool(s, &tt, h) }); err != nil {
		return err
	}
	st.tools.Store(tool.Name, &toolEntry{opts: opts, compiled: compileSchema(&st.schemas, tt.InputSchema), repeatable: repeatable(tool)})
	return nil
}

// AddRawTool is AddTool for a raw tool, the drop-in replacement for
// (*mcp.Server).AddTool. Like the SDK, it hands h its arguments unchecked;
// when h fails and they do not fit the tool's input schema, the client
// receives a VALIDATION_ERROR naming the wrong fields.
//
// AddRawTool returns a *codes.DefinitionError, and adds nothing, for the
// mistakes AddTool refuses, and if the input schema is missing, does not
// have type "object" or cannot be compiled (codes.InvalidSchema).
func AddRawTool(s *mcp.Server, tool *mcp.Tool, h mcp.ToolHandler, opts ...filter.ToolOption) error {
	st, err := checkTool("AddRawTool", s, tool, h == nil, opts)
	if err != nil {
		return err
	}
	schema, err := compileInputSchema(tool)
	if err != nil {
		st.tools.Delete(tool.Name)
		return err
	}
	if err := st.register(tool.Name, func() { s.AddTool(tool, h) }); err != nil {
		return err
	}
	st.tools.Store(tool.Name, &toolEntry{opts: opts, compiled: schema, repeatable: repeatable(tool)})
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

// register runs add, turning the SDK's panic for a tool it cannot use,
// raised before it registers anything, into a definition error that frees
// the name.
func (st *serverState) register(name string, add func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			st.tools.Delete(name)
			err = invalidSchema(name, fmt.Sprint(v))
		}
	}()
	add()
	return nil
}

// checkTool refuses a nil server or tool, a server without Install, an
// invalid or duplicate name, a nil handler and bad options; it reserves the
// name and returns the server's state.
func checkTool(fn string, s *mcp.Server, tool *mcp.Tool, nilHandler bool, opts []filter.ToolOption) (*serverState, error) {
	if s == nil {
		return nil, &codes.DefinitionError{Mistake: codes.NilValue, Reason: fn + " needs the *mcp.Server to add the tool to"}
	}
	if tool == nil {
		return nil, &codes.DefinitionError{Mistake: codes.InvalidToolName, Reason: "the tool is nil; pass a *mcp.Tool with a name"}
	}
	st := servers.Load(s)
	if st == nil {
		return nil, bind.NotInstalled("gosdk", fn)
	}
	if err := toolname.Check(tool.Name); err != nil {
		return nil, err
	}
	if nilHandler {
		return nil, &codes.DefinitionError{Mistake: codes.NilValue, Subject: tool.Name, Reason: "the tool has no handler; pass the function that implements it"}
	}
	if err := bind.CheckOptions("gosdk", fn, opts); err != nil {
		return nil, err
	}
	// Reserved: st.tools.Delete frees it again.
	if _, taken := st.tools.LoadOrStore(tool.Name, &toolEntry{}); taken {
		return nil, &codes.DefinitionError{Mistake: codes.DuplicateTool, Subject: tool.Name,
			Reason: "a tool with this name is already registered on this server; give each tool its own name"}
	}
	return st, nil
}

// compileInputSchema compiles the input schema of a raw tool, refusing what
// the SDK would panic on.
func compileInputSchema(tool *mcp.Tool) (*inputschema.Schema, error) {
	if tool.InputSchema == nil {
		return nil, invalidSchema(tool.Name, `the tool has no input schema; for a tool that takes no arguments use {"type":"object"}`)
	}
	doc, err := inputschema.Marshal(tool.InputSchema)
	if err != nil {
		return nil, invalidSchema(tool.Name, "the input schema does not marshal to JSON: "+err.Error())
	}
	var root struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(doc, &root); err != nil || root.Type != "object" {
		return nil, invalidSchema(tool.Name, `the input schema must be a JSON object with "type": "object"`)
	}
	s, err := inputschema.Compile(doc)
	if err != nil {
		return nil, invalidSchema(tool.Name, err.Error())
	}
	return s, nil
}

func invalidSchema(name, reason string) error {
	return &codes.DefinitionError{Mistake: codes.InvalidSchema, Subject: name, Reason: reason}
}
