// Package bind attaches mcperr's state to a server it does not own, and
// holds the definition errors both adapters return at start-up.
package bind

import (
	"runtime"
	"strconv"
	"sync"
	"weak"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/toolname"
)

// Table maps servers of type K, by identity, to their mcperr state. It must
// be a package-level table: the SDKs' server types have no place for a
// library's state, and an adapter's AddTool must know at start-up whether
// Install was called on its server, to refuse rather than serve unguarded.
// Keys are held weakly: an entry goes when its server is garbage collected.
// The zero Table is ready to use and safe for concurrent use.
type Table[K, V any] struct {
	mu sync.RWMutex
	m  map[weak.Pointer[K]]*V
}

// Load returns the value of k, or nil.
func (t *Table[K, V]) Load(k *K) *V {
	if k == nil {
		return nil
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.m[weak.Make(k)]
}

// LoadOrStore returns the value of k if it has one, and loaded true;
// otherwise it stores v for k and returns v and false.
func (t *Table[K, V]) LoadOrStore(k *K, v *V) (actual *V, loaded bool) {
	wp := weak.Make(k)
	t.mu.Lock()
	defer t.mu.Unlock()
	if old := t.m[wp]; old != nil {
		return old, true
	}
	if t.m == nil {
		t.m = make(map[weak.Pointer[K]]*V)
	}
	t.m[wp] = v
	runtime.AddCleanup(k, func(key weak.Pointer[K]) {
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(t.m, key)
	}, wp)
	return v, false
}

// NilPipeline is the definition error of Install given a nil pipeline.
var NilPipeline = &codes.DefinitionError{Mistake: codes.NilValue,
	Reason: "Install needs the server's *filter.Pipeline; build it with filter.New (filter.New() for the defaults) and check its error"}

// Conflict returns the definition error of a second Install on a server
// with another pipeline.
func Conflict(pkg string) error {
	return &codes.DefinitionError{Mistake: codes.ConflictingConfiguration,
		Reason: "mcperr is already installed on this server with another pipeline; call " + pkg + ".Install once per server and share one *filter.Pipeline"}
}

// NotInstalled returns the definition error of fn called for a server
// where pkg's Install was not called first.
func NotInstalled(pkg, fn string) error {
	return &codes.DefinitionError{Mistake: codes.NotInstalled,
		Reason: pkg + "." + fn + " needs mcperr installed on the server first; call " + pkg + ".Install(s, pipeline) before adding tools"}
}

// Misplaced says, for the record of a server's first tool call, that fn, a
// tool middleware, runs between mcperr's and the handlers, and how to fix it.
func Misplaced(pkg, fn, fix string) string {
	return fn + " runs between the middleware of " + pkg + ".Install and the tool handlers: it sees the handlers' errors and panics before mcperr does, and an error result it builds from one passes as built; " + fix
}

// CheckTool returns the definition error of a tool that pkg.fn adds: its
// name, a nil handler, or one of its options.
func CheckTool(pkg, fn, name string, nilHandler bool, opts []filter.ToolOption) error {
	if err := toolname.Check(name); err != nil {
		return err
	}
	if nilHandler {
		return &codes.DefinitionError{Mistake: codes.NilValue, Subject: name, Reason: "the tool has no handler; pass the function that implements it"}
	}
	return CheckOptions(pkg, fn, opts)
}

// CheckOptions returns the definition error of the first of opts, given to
// pkg.fn, that cannot serve: nil, or built with a mistake.
func CheckOptions(pkg, fn string, opts []filter.ToolOption) error {
	for i, o := range opts {
		if o == nil {
			return &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "option " + strconv.Itoa(i) + " given to " + pkg + "." + fn + " is nil; leave it out, or pass the option you meant"}
		}
		if bad := o.DefinitionError(); bad != nil {
			return bad
		}
	}
	return nil
}
