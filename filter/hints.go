package filter

import (
	"errors"
	"reflect"

	crdb "github.com/cockroachdb/errors"

	"github.com/mcperr/mcperr/toolerr"
)

// hintLayers are the types of cockroachdb/errors that the hints meant for
// the model are found through: the layer WithHint adds, and the layers that
// only add a message or a stack (Wrap, WithMessage, WithStack). Computed
// once, never changed.
var hintLayer, plainLayers = func() (reflect.Type, map[reflect.Type]bool) {
	base := errors.New("")
	plain := map[reflect.Type]bool{}
	for _, e := range []error{crdb.WithStack(base), crdb.WithMessage(base, "m"), crdb.Wrap(base, "m"), crdb.WithMessagef(base, "m")} {
		for ; e != nil && e != base; e = errors.Unwrap(e) {
			plain[reflect.TypeOf(e)] = true
		}
	}
	return reflect.TypeOf(crdb.WithHint(base, "h")), plain
}()

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
		t := reflect.TypeOf(e)
		if t == hintLayer {
			hints = appendHint(hints, e.(toolerr.Hinter).ErrorHint())
			continue
		}
		if !plainLayers[t] {
			break
		}
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
	t := reflect.TypeOf(err)
	return t == hintLayer || plainLayers[t]
}
