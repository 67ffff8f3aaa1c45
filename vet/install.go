package vet

import (
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// NotInstalled reports tools added with an SDK's own AddTool to a server that
// mcperr was never installed on.
var NotInstalled = &analysis.Analyzer{
	Name: "mcperrinstall",
	Doc: `report tools added to a server that mcperr was never installed on

In a package that uses mcperr, or of a module that has it, a server
created with mcp.NewServer (go-sdk) or server.NewMCPServer (mcp-go) whose tools
are added with the SDK's own AddTool, and which is never given to gosdk.Install
or mcpgo.Install, answers its tools' errors and panics without mcperr. The
check reports only when the server value is used for nothing but the SDK's own
functions and methods, and functions of the module that do nothing else with
it (tools.Register(s)), within the function that creates it, so that an
Install elsewhere cannot be missed. A server kept in an unexported field of
a struct of the package (&Server{server: mcp.NewServer(...)}) is followed
into every function of the package that reads the field, where a bound
s.server.AddTool and a closure that gives the server to the SDK
(NewStreamableHTTPHandler's getServer) are the SDK's uses. Only a server
that one of those uses serves to clients is reported (go-sdk's Run, Connect,
NewStreamableHTTPHandler, NewSSEHandler; mcp-go's ServeStdio,
NewStdioServer, NewStreamableHTTPServer, NewSSEServer): a program that
builds the server only to list its tools, to write docs, answers no client.
Test files, which build bare servers on purpose, are not checked.`,
	Requires:  []*analysis.Analyzer{pkgState},
	Run:       runNotInstalled,
	FactTypes: []analysis.Fact{new(addsTools)},
}

// addsTools is the fact of a function of the module that adds tools with
// the SDK's own AddTool to a server it is given, and does nothing else
// with it (tools.Register(s)): a server passed to it, and never to
// Install, is reported where it is passed.
type addsTools struct {
	Params uint64 // bit i: the parameter i is such a server
}

func (*addsTools) AFact() {}

func (*addsTools) String() string { return "addsTools" }

func runNotInstalled(pass *analysis.Pass) (any, error) {
	if !ownModule(pass) && !importsPath(pass.Pkg, isMcperr) {
		return nil, nil
	}
	ssainfo := ssaOf(pass)
	adds := func(c *ssa.CallCommon, i int) bool {
		var f addsTools
		obj, ok := c.StaticCallee().Object().(*types.Func)
		return ok && i < 64 && pass.ImportObjectFact(obj, &f) && f.Params&(1<<i) != 0
	}
	if importsPath(pass.Pkg, isSDK) {
		exportAddsTools(pass, ssainfo, adds)
	}
	var reports []analysis.Diagnostic
	for _, fn := range srcFuncs(ssainfo) {
		if callsAdapter(fn) {
			// The function uses mcperr's adapters (Wrap, Structured...)
			// itself: the author chose mcperr here; say nothing.
			continue
		}
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				call, ok := in.(*ssa.Call)
				if !ok {
					continue
				}
				pkg, name := funcPath(call.Common().StaticCallee())
				var sdk, install string
				switch {
				case pkg == pathSDK && name == "NewServer":
					sdk, install = pathSDK, "gosdk.Install(s, pipeline) right after mcp.NewServer, and add tools with gosdk.AddTool"
				case pkg == pathMCPGoS && name == "NewMCPServer":
					sdk, install = pathMCPGoS, "mcpgo.Install(s, pipeline) after server.NewMCPServer, and add tools with mcpgo.AddTool"
				default:
					continue
				}
				add, served := servedWithoutInstall(call, sdk, adds)
				if add == nil {
					add, served = fieldServerWithoutInstall(ssainfo, call, sdk, adds)
				}
				// A server never served (a generator that lists its tools
				// to write docs, one given only to mcp-go's NewTestServer)
				// answers no client; test files build bare servers on
				// purpose.
				if add != nil && served && !inTestFile(pass, call.Pos()) && !inTestFile(pass, add.Pos()) {
					reports = append(reports, analysis.Diagnostic{Pos: add.Pos(), Message: "a tool is added with the SDK's own AddTool to a server mcperr is not installed on, so its errors and panics reach the client without mcperr: call " + install})
				}
			}
		}
	}
	if len(reports) > 0 && !importsPath(pass.Pkg, isMcperr) && bareModule(pass) {
		return nil, nil // mcperr is in neither: mcperrsdktext reports what reaches the client
	}
	for _, d := range reports {
		pass.Report(d)
	}
	return nil, nil
}

// toolAddedWithoutInstall returns the first call that adds a tool to the
// server srv, when every use of srv is a function or method of the SDK, or
// a function of the module that adds tools to it (adds says whether the
// call c does so with its argument i), so that srv never reaches an
// Install; nil otherwise.
func toolAddedWithoutInstall(srv ssa.Value, sdk string, adds func(c *ssa.CallCommon, i int) bool) ssa.Instruction {
	first, _ := servedWithoutInstall(srv, sdk, adds)
	return first
}

// servedWithoutInstall returns what toolAddedWithoutInstall does, and
// whether srv is served to a client there (serving).
func servedWithoutInstall(srv ssa.Value, sdk string, adds func(c *ssa.CallCommon, i int) bool) (ssa.Instruction, bool) {
	first, served, escapes := serverUses(srv, sdk, adds)
	if escapes {
		return nil, false
	}
	return first, served
}

// serving reports whether the function name of the SDK's package pkg
// serves the server it is given to clients: go-sdk's Server.Run and
// Server.Connect, and the getServer of NewStreamableHTTPHandler and
// NewSSEHandler; mcp-go's ServeStdio, NewStdioServer,
// NewStreamableHTTPServer and NewSSEServer. (mcp-go's
// servertest.NewTestServer serves a test; as a function of another
// package, serverUses does not follow a server given to it.)
func serving(pkg, name string) bool {
	switch pkg {
	case pathSDK:
		return name == "Run" || name == "Connect" || name == "NewStreamableHTTPHandler" || name == "NewSSEHandler"
	case pathMCPGoS:
		return name == "ServeStdio" || name == "NewStdioServer" || name == "NewStreamableHTTPServer" || name == "NewSSEServer"
	}
	return false
}

// serverUses returns the first call that adds a tool to the server srv;
// whether one of its uses serves it to clients; and whether srv is used
// otherwise than by the SDK's functions and methods and the module's
// functions that add tools to it (adds says whether the call c does so
// with its argument i): given to Install, kept somewhere, or handed to
// code the analysis does not follow.
func serverUses(srv ssa.Value, sdk string, adds func(c *ssa.CallCommon, i int) bool) (first ssa.Instruction, served, escapes bool) {
	for _, r := range *srv.Referrers() {
		switch r := r.(type) {
		case *ssa.DebugRef:
			continue
		case ssa.CallInstruction:
			c := r.Common()
			if c.IsInvoke() || c.Value == srv {
				return nil, false, true
			}
			if i := slices.Index(c.Args, srv); i >= 0 && c.StaticCallee() != nil && adds(c, i) {
				if first == nil || r.Pos() < first.Pos() {
					first = r
				}
				continue
			}
			pkg, name := funcPath(c.StaticCallee())
			if pkg != sdk && !(sdk == pathMCPGoS && pkg == pathMCPGo) {
				return nil, false, true
			}
			served = served || serving(pkg, name)
			switch name {
			case "AddTool", "AddTools", "SetTools":
				// A handler wrapped by mcperr (gosdk.Wrap, mcpgo.Wrap) is,
				// without Install, the handler unchanged: reported too.
				if first == nil || r.Pos() < first.Pos() {
					first = r
				}
			}
		case *ssa.MakeClosure: // s.server.AddTool as a value: a bound method
			fn, _ := r.Fn.(*ssa.Function)
			pkg, name := funcPath(fn)
			if pkg != sdk && !(sdk == pathMCPGoS && pkg == pathMCPGo) {
				return nil, false, true
			}
			if name == "AddTool" || name == "AddTools" || name == "SetTools" {
				if first == nil {
					first = r
				}
			}
		case *ssa.Return: // func(*http.Request) *mcp.Server { return s.server }, given to the SDK
			given, serves := givenToSDK(srv.Parent(), sdk)
			if !given {
				return nil, false, true
			}
			served = served || serves
		default:
			return nil, false, true
		}
	}
	return first, served, false
}

// givenToSDK reports whether fn is a closure whose every use is as an
// argument of a function of the SDK, such as the getServer of go-sdk's
// NewStreamableHTTPHandler, and whether one of those serves the server it
// returns.
func givenToSDK(fn *ssa.Function, sdk string) (given, serves bool) {
	if fn.Parent() == nil {
		return false, false
	}
	used := false
	for _, b := range fn.Parent().Blocks {
		for _, in := range b.Instrs {
			mc, ok := in.(*ssa.MakeClosure)
			if !ok || mc.Fn != fn {
				continue
			}
			for _, r := range *mc.Referrers() {
				c, ok := r.(ssa.CallInstruction)
				if _, isRef := r.(*ssa.DebugRef); isRef {
					continue
				}
				if !ok || c.Common().Value == mc {
					return false, false
				}
				pkg, name := funcPath(c.Common().StaticCallee())
				if pkg != sdk {
					return false, false
				}
				used, serves = true, serves || serving(pkg, name)
			}
		}
	}
	return used, serves
}

// fieldServerWithoutInstall returns the first call that adds a tool to
// the server srv makes, when srv is kept only in an unexported field of a
// struct of the package (&Server{server: mcp.NewServer(...)}, as the
// Kubernetes server keeps its own) and every value read from that field,
// in any function of the package, is used only as serverUses allows, nil
// otherwise; and whether one of those uses serves it.
func fieldServerWithoutInstall(info *buildssa.SSA, srv ssa.Value, sdk string, adds func(c *ssa.CallCommon, i int) bool) (first ssa.Instruction, served bool) {
	var st *types.Struct
	field := -1
	for _, r := range *srv.Referrers() {
		switch r := r.(type) {
		case *ssa.DebugRef:
		case *ssa.Store:
			fa, ok := r.Addr.(*ssa.FieldAddr)
			if !ok || r.Val != srv || field >= 0 {
				return nil, false
			}
			s, isStruct := deref(fa.X.Type()).Underlying().(*types.Struct)
			if !isStruct || s.Field(fa.Field).Exported() || s.Field(fa.Field).Pkg() != info.Pkg.Pkg {
				return nil, false
			}
			st, field = s, fa.Field
		default:
			return nil, false
		}
	}
	if st == nil {
		return nil, false
	}
	for _, fn := range allFuncs(info) {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				var loads []ssa.Value
				switch x := in.(type) {
				case *ssa.FieldAddr:
					if x.Field != field || deref(x.X.Type()).Underlying() != st {
						continue
					}
					for _, r := range *x.Referrers() {
						switch r := r.(type) {
						case *ssa.UnOp:
							loads = append(loads, r)
						case *ssa.Store:
							if r.Addr != x {
								return nil, false // the field's address is kept
							}
						case *ssa.DebugRef:
						default:
							return nil, false
						}
					}
				case *ssa.Field:
					if x.Field == field && x.X.Type().Underlying() == st {
						loads = append(loads, x)
					}
				}
				for _, v := range loads {
					add, serves, escapes := serverUses(v, sdk, adds)
					served = served || serves
					if escapes {
						return nil, false
					}
					if add != nil && (first == nil || add.Pos() < first.Pos()) {
						first = add
					}
				}
			}
		}
	}
	return first, served
}

// exportAddsTools gives the addsTools fact to the package's functions that
// add tools to a server they are given and do nothing else with it, a
// function of a function found in a later round.
func exportAddsTools(pass *analysis.Pass, info *buildssa.SSA, adds func(c *ssa.CallCommon, i int) bool) {
	for range maxDepth {
		found := false
		for _, fn := range srcFuncs(info) {
			obj, ok := fn.Object().(*types.Func)
			if !ok || len(fn.Params) > 64 || pass.ImportObjectFact(obj, new(addsTools)) {
				continue
			}
			var f addsTools
			for i, p := range fn.Params {
				sdk := ""
				switch t := deref(p.Type()); {
				case isNamed(t, pathSDK, "Server"):
					sdk = pathSDK
				case isNamed(t, pathMCPGoS, "MCPServer"):
					sdk = pathMCPGoS
				}
				if sdk != "" && toolAddedWithoutInstall(p, sdk, adds) != nil {
					f.Params |= 1 << i
				}
			}
			if f.Params != 0 {
				pass.ExportObjectFact(obj, &f)
				found = true
			}
		}
		if !found {
			return
		}
	}
}

// callsAdapter reports whether fn calls a function of one of mcperr's
// adapter packages, but the wrappers, which alone, without Install, are
// the handler unchanged.
func callsAdapter(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			if c, ok := in.(ssa.CallInstruction); ok {
				pkg, name := funcPath(c.Common().StaticCallee())
				if (pkg == pathMcpgoA || pkg == pathGosdkA) && !strings.HasPrefix(name, "Wrap") && name != "Structured" {
					return true
				}
			}
		}
	}
	return false
}
