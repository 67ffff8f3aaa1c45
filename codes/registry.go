package codes

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Registry holds the codes a server knows: the built-in ones and those the
// application registers. The zero Registry is ready to use and knows the
// built-in codes. A Registry is safe for concurrent use; registration is
// meant for start-up, lookups for every call, which take no lock.
type Registry struct {
	mu     sync.Mutex // held by Register and All
	custom atomic.Pointer[map[Code]Info]
	order  []Code // guarded by mu
}

// NewRegistry returns a Registry that knows the built-in codes and the given
// ones. It returns a *DefinitionError if any of them cannot be registered,
// and then registers none.
func NewRegistry(infos ...Info) (*Registry, error) {
	r := &Registry{}
	if err := r.Register(infos...); err != nil {
		return nil, err
	}
	return r, nil
}

// Register adds application codes. Each must be well formed (see
// Code.Validate), have a category, and be new: neither built in nor
// registered before, nor given twice in one call. On any mistake Register
// returns a *DefinitionError (InvalidCode or DuplicateCode) and registers
// none of infos.
func (r *Registry) Register(infos ...Info) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := make(map[Code]bool, len(infos))
	for _, in := range infos {
		if err := in.validate(); err != nil {
			return err
		}
		_, builtin := lookupBuiltin(in.Code)
		_, known := r.load()[in.Code]
		if builtin || known || seen[in.Code] {
			reason := "the code is already registered; choose another name"
			if builtin {
				reason = "the code is built in; use it as it is or choose another name"
			}
			return &DefinitionError{Code: DuplicateCode, Subject: string(in.Code), Reason: reason}
		}
		seen[in.Code] = true
	}
	old := r.load()
	custom := make(map[Code]Info, len(old)+len(infos))
	for c, in := range old {
		custom[c] = in
	}
	for _, in := range infos {
		custom[in.Code] = in
		r.order = append(r.order, in.Code)
	}
	r.custom.Store(&custom) // a new map: lookups in flight keep the old one
	return nil
}

// load returns the application's codes; the map is never changed.
func (r *Registry) load() map[Code]Info {
	if m := r.custom.Load(); m != nil {
		return *m
	}
	return nil
}

// Lookup returns what the registry knows of c. A nil Registry knows the
// built-in codes only.
func (r *Registry) Lookup(c Code) (Info, bool) {
	if in, ok := lookupBuiltin(c); ok {
		return in, true
	}
	if r == nil {
		return Info{}, false
	}
	in, ok := r.load()[c]
	return in, ok
}

// All returns every code the registry knows, built-in ones first, then the
// application's in the order they were registered.
func (r *Registry) All() []Info {
	out := Builtin()
	if r == nil {
		return out
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	custom := r.load()
	out = slices.Grow(out, len(r.order))
	for _, c := range r.order {
		out = append(out, custom[c])
	}
	return out
}
