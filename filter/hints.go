package filter

import (
	"errors"
	"reflect"

	"github.com/mcperr/mcperr/toolerr"
)

// typeName names a type by its package path and name.
type typeName struct{ pkg, name string }

// nameOf returns the name of the type of e, or of what it points to.
func nameOf(e error) typeName {
	t := reflect.TypeOf(e)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return typeName{t.PkgPath(), t.Name()}
}

// The layers of github.com/cockroachdb/errors that mcperr reads, named
// rather than imported, so that a server links that package only if its own
// code uses it. TestCockroachLayers checks the names against the package.
var (
	// hintLayer is what errors.WithHint adds.
	hintLayer = typeName{"github.com/cockroachdb/errors/hintdetail", "withHint"}
	// stackLayer is what errors.WithStack, errors.New and errors.Wrap add.
	stackLayer = typeName{"github.com/cockroachdb/errors/withstack", "withStack"}
	// prefixLayer is what errors.WithMessage and errors.Wrap add.
	prefixLayer = typeName{"github.com/cockroachdb/errors/errutil", "withPrefix"}
)

// modelHints returns the hints meant for the model in err, the error the
// pipeline answered for. The rule: a hint reaches the model only if it was
// attached on purpose at the top of the error, with cockroachdb/errors
// WithHint over any number of its Wrap, WithMessage and WithStack layers, or
// with ToolError.WithHint on the public error pub the built-in mapping
// answered with. The walk stops at the first error of any other type, so a
// hint deeper in the chain (a library's or a driver's), a hint below a
// ToolError's cause, and an issue link (WithIssueLink, which is not a
// WithHint layer) stay in the log.
func modelHints(err, pub error) (hints []string) {
	if pub == nil && !mayHint(err) {
		return nil
	}
	defer func() {
		if recover() != nil {
			hints = nil // an ErrorHint or Unwrap that panics gives no hint
		}
	}()
	for e, n := err, 0; e != nil && n < MaxChain; e, n = errors.Unwrap(e), n+1 {
		switch nameOf(e) {
		case hintLayer:
			if h, ok := e.(toolerr.Hinter); ok {
				hints = appendHint(hints, h.ErrorHint())
			}
			continue
		case stackLayer, prefixLayer:
			continue
		}
		break
	}
	if te, ok := pub.(*toolerr.ToolError); ok {
		hints = appendHint(hints, te.ErrorHint())
	}
	return hints
}

// appendHint appends h, bounded, unless it is empty, already there, or one
// too many.
func appendHint(hints []string, h string) []string {
	if h == "" || len(hints) >= MaxHints {
		return hints
	}
	h = boundMessage(h, MaxHint)
	for _, x := range hints {
		if x == h {
			return hints
		}
	}
	return append(hints, h)
}

// mayHint reports whether err is a layer the hints meant for the model are
// found through, so that an error without one costs no walk.
func mayHint(err error) bool {
	switch nameOf(err) {
	case hintLayer, stackLayer, prefixLayer:
		return true
	}
	return false
}
