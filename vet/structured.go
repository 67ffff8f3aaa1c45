package vet

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// StructuredHandler reports mcp-go's mcp.NewStructuredToolHandler and
// mcp.NewTypedToolHandler in a package that uses mcperr's mcp-go adapter.
var StructuredHandler = &analysis.Analyzer{
	Name: "mcperrstructured",
	Doc: `report mcp-go's NewStructuredToolHandler and NewTypedToolHandler where mcperr is used

mcp.NewStructuredToolHandler answers a failed call itself with
"tool execution failed: <err>" and a bad argument with
"failed to bind arguments: <err>"; mcp.NewTypedToolHandler does the latter.
mcperr passes such results through untouched, so the error's text reaches the
model. mcpgo.Structured(h) takes the same handler and returns its errors for
mcperr to map. The check runs in packages that import mcperr's mcp-go adapter.`,
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runStructuredHandler,
}

func runStructuredHandler(pass *analysis.Pass) (any, error) {
	if !importsPath(pass.Pkg, func(p string) bool { return p == pathMcpgoA }) {
		return nil, nil
	}
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	for cur := range ins.Root().Preorder((*ast.CallExpr)(nil)) {
		call := cur.Node().(*ast.CallExpr)
		fun := ast.Unparen(call.Fun)
		switch f := fun.(type) {
		case *ast.IndexExpr:
			fun = f.X
		case *ast.IndexListExpr:
			fun = f.X
		}
		var id *ast.Ident
		switch f := fun.(type) {
		case *ast.SelectorExpr:
			id = f.Sel
		case *ast.Ident:
			id = f
		default:
			continue
		}
		obj, ok := pass.TypesInfo.Uses[id].(*types.Func)
		if !ok || obj.Pkg() == nil || obj.Pkg().Path() != pathMCPGo {
			continue
		}
		switch obj.Name() {
		case "NewStructuredToolHandler":
			d := analysis.Diagnostic{
				Pos:     call.Pos(),
				End:     call.End(),
				Message: "mcp.NewStructuredToolHandler answers a failed call with \"tool execution failed: <err>\" and bad arguments with \"failed to bind arguments: <err>\", which mcperr passes through untouched: use mcpgo.Structured(h), which returns the errors for mcperr to map",
			}
			if name := importName(pass, call, pathMcpgoA); name != "" {
				d.SuggestedFixes = []analysis.SuggestedFix{{
					Message: "Use mcpgo.Structured",
					TextEdits: []analysis.TextEdit{{
						Pos:     fun.Pos(),
						End:     fun.End(),
						NewText: []byte(name + ".Structured"),
					}},
				}}
			}
			report(pass, d)
		case "NewTypedToolHandler":
			pass.Reportf(call.Pos(), "mcp.NewTypedToolHandler answers bad arguments with \"failed to bind arguments: <err>\", which mcperr passes through untouched: bind the arguments in the handler and return the error, or use mcpgo.Structured with a handler that returns (result, error)")
		}
	}
	return nil, nil
}
