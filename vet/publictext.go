package vet

import (
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"
)

// PublicErrorText reports mcperr values that reach the model (a ToolError's
// message, hint and details, a domain.BusinessRule's message and context, a
// filter.Response) built from an error's text or from a log-only field.
var PublicErrorText = &analysis.Analyzer{
	Name: "mcperrpublictext",
	Doc: `report error text made public through mcperr

A ToolError's message, hint and details, a domain.BusinessRule's message and
context, and a filter.Response's Message, Details and Hints are sent to the
client as written. Text taken from an error (err.Error(), an error formatted
with fmt, errors.Join) or from domain.Authorization's Permission or Subject is
for the log: it may hold SQL, paths, hosts or secrets. Write a message for the
model and keep the error as the cause: toolerr.New("...").WithCause(err).`,
	Requires:  []*analysis.Analyzer{pkgState},
	Run:       runPublicErrorText,
	FactTypes: []analysis.Fact{new(publicFixed)},
}

// publicFixed is errorsFixed as mcperrpublictext records it (a fact type
// belongs to one analyzer): a function whose errors, formatted into a
// ToolError's message, send only the text the module wrote.
type publicFixed struct{}

func (*publicFixed) AFact() {}

func (*publicFixed) String() string { return "publicFixed" }

func runPublicErrorText(pass *analysis.Pass) (any, error) {
	built := importsPath(pass.Pkg, isMcperr)
	if !built && !ownModule(pass) {
		return nil, nil // no mcperr value is built here, and no fact is needed
	}
	ssainfo := ssaOf(pass)
	t := newTainter(ssainfo.Pkg)
	t.fixedFact = func(f *types.Func) bool { return pass.ImportObjectFact(f, new(publicFixed)) }
	t.fixedGiven = true
	if ownModule(pass) {
		exportFixed(pass, t, ssainfo, func() analysis.Fact { return new(publicFixed) })
	}
	if !built {
		return nil, nil // no mcperr value is built here: nothing to report
	}
	for _, fn := range srcFuncs(ssainfo) {
		for _, h := range publicSinks(t, fn, nil) {
			pass.Reportf(h.pos, "%s", h.msg)
		}
		// A helper of the package that puts a string argument into one of
		// these values, called with error text: report the call.
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				call, ok := in.(*ssa.Call)
				if !ok {
					continue
				}
				if msg := helperSinkOf(t, call, publicSinks); msg != "" {
					pass.Reportf(call.Pos(), "%s", msg)
				}
			}
		}
	}
	return nil, nil
}

// publicSinks returns the values of fn that reach the client and hold error
// text, with fn's parameters bound by e (nil: error parameters are error
// text, other parameters are clean).
func publicSinks(t *tainter, fn *ssa.Function, e *env) []sinkHit {
	var hits []sinkHit
	tainted := func(v ssa.Value) bool { return t.taintedIn(e, v) }
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case ssa.CallInstruction:
				c := in.Common()
				callee := c.StaticCallee()
				pkg, name := funcPath(callee)
				switch {
				case pkg == pathToolerr && name == "New" && callee.Signature.Recv() == nil && len(c.Args) == 1:
					if tainted(c.Args[0]) {
						hits = append(hits, sinkHit{pos: in.Pos(), msg: "toolerr.New message is built from an error's text, which the model reads as written: " + leakAdvice})
					}
				case pkg == pathToolerr && name == "Wrap" && callee.Signature.Recv() == nil && len(c.Args) == 2:
					if tainted(c.Args[1]) {
						hits = append(hits, sinkHit{pos: in.Pos(), msg: "toolerr.Wrap message is built from an error's text, which the model reads as written: write the words yourself; Wrap keeps the error as the cause"})
					}
				case pkg == pathToolerr && name == "WithHint" && len(c.Args) == 2:
					if tainted(c.Args[1]) {
						hits = append(hits, sinkHit{pos: in.Pos(), msg: "ToolError.WithHint hint is built from an error's text (or an Authorization's permission), which the model reads: write the advice in your own words and keep the error as the cause with WithCause"})
					}
				case pkg == pathToolerr && name == "WithDetails" && len(c.Args) == 2:
					if tainted(c.Args[1]) {
						hits = append(hits, sinkHit{pos: in.Pos(), msg: "ToolError.WithDetails details hold an error's text (or an Authorization's permission), which the client reads: put only public facts in details and keep the error as the cause with WithCause"})
					}
				case pkg == pathDomain && name == "NewBusinessRule" && len(c.Args) == 3:
					if tainted(c.Args[1]) {
						hits = append(hits, sinkHit{pos: in.Pos(), msg: "domain.NewBusinessRule message is built from an error's text, which the model reads as written: write the rule's message for the model and log the error"})
					} else if tainted(c.Args[2]) {
						hits = append(hits, sinkHit{pos: in.Pos(), msg: "domain.NewBusinessRule context holds an error's text (or an Authorization's permission), which the client reads as details: put only public facts in it and log the error"})
					}
				}
			case *ssa.Store:
				fa, ok := in.Addr.(*ssa.FieldAddr)
				if !ok || !isNamed(fa.X.Type(), pathFilter, "Response") {
					continue
				}
				field := structField(fa.X.Type(), fa.Field)
				switch field {
				case "Message", "Details", "Hints":
					if tainted(in.Val) {
						hits = append(hits, sinkHit{pos: storePos(in), msg: "filter.Response." + field + " is built from an error's text (or an Authorization's permission), and everything in a Response is sent to the client: write it for the model and leave the error for the log, which the pipeline writes"})
					}
				}
			}
		}
	}
	return hits
}
