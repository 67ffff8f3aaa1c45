// Package bind attaches mcperr's state to a server it does not own, and
// checks what the adapters are given at start-up.
package bind

import (
	"runtime"
	"strconv"
	"sync"
	"weak"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/nilness"
)

// Table maps servers of type K, by identity, to their mcperr state. It is
// the one package-level table the adapters keep, and it must be one: the
// SDKs' server types have no place for a library's state, and an adapter's
// AddTool must know at start-up whether Install was called on the server it
// is given, to refuse rather than serve unguarded. At run time the state
// travels in the request's context instead. It holds its keys weakly: an
// entry goes when its server is garbage collected. The zero Table is ready
// to use and safe for concurrent use.
type Table[K, V any] struct {
	mu sync.RWMutex
	m  map[weak.Pointer[K]]*V
}

// Load returns the value of k, or nil.
func (t *Table[K, V]) Load(k *K) *V {
	if k == nil {
		return nil
	}
	wp := weak.Make(k)
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.m[wp]
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
	runtime.AddCleanup(k, t.forget, wp)
	return v, false
}

func (t *Table[K, V]) forget(wp weak.Pointer[K]) {
	t.mu.Lock()
	delete(t.m, wp)
	t.mu.Unlock()
}

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

// Config is one tool's own options, as an adapter's Options set them.
type Config struct {
	Filters  []filter.Filter
	Settings callctx.Settings
	bad      error // an option given a value it does not accept
}

// NewConfig applies opts, given to pkg.fn, in order: a nil option or filter,
// or a value an option does not accept, is a *codes.DefinitionError.
func NewConfig[O ~func(*Config)](pkg, fn string, opts []O) (Config, error) {
	var c Config
	for i, opt := range opts {
		if opt == nil {
			return c, &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "option " + strconv.Itoa(i) + " given to " + pkg + "." + fn + " is nil; leave it out, or pass the option you meant"}
		}
		opt(&c)
	}
	if c.bad != nil {
		return c, c.bad
	}
	return c, nilness.CheckFilters(fn, c.Filters)
}

// AddFilters is an adapter's WithFilters(fs...).
func (c *Config) AddFilters(fs []filter.Filter) {
	c.Filters = append(c.Filters[:len(c.Filters):len(c.Filters)], fs...)
}

// ReportOnly is an adapter's WithReportOnly(on).
func (c *Config) ReportOnly(on bool) { c.Settings.ReportOnly = onOff(on) }

// ArgumentCheck is an adapter's WithArgumentCheck(on).
func (c *Config) ArgumentCheck(on bool) { c.Settings.ArgumentCheck = onOff(on) }

// HandBuilt is pkg's WithHandBuilt(h); a policy that is none of filter's
// constants is a definition error.
func (c *Config) HandBuilt(pkg string, h filter.HandBuilt) {
	if h < filter.PassHandBuilt || h > filter.MaskHandBuilt {
		c.bad = &codes.DefinitionError{Mistake: codes.InvalidOption,
			Reason: pkg + ".WithHandBuilt needs filter.PassHandBuilt, filter.ReportHandBuilt or filter.MaskHandBuilt, not " + strconv.Itoa(int(h))}
		return
	}
	c.Settings.HandBuilt = int8(h) + 1
}

// Over returns the options of a tool added with c over those of its
// wrapper, w: c's settings where set, and c's filters, if any, instead.
func (c Config) Over(w Config) Config {
	if len(c.Filters) > 0 {
		w.Filters = c.Filters
	}
	w.Settings = w.Settings.Merge(c.Settings)
	return w
}

// onOff is the value of a two-way tool setting: 2 on, 1 off (0 is unset).
func onOff(on bool) int8 {
	if on {
		return 2
	}
	return 1
}

// CheckNotWrapped returns the definition error of a WithArgumentCheck
// given to fn, a wrapper of pkg: arguments are checked where the call
// enters the server, before any wrapped handler, which cannot say
// otherwise.
func CheckNotWrapped(pkg, fn string, s callctx.Settings) error {
	if s.ArgumentCheck == 0 {
		return nil
	}
	return &codes.DefinitionError{Mistake: codes.InvalidOption,
		Reason: pkg + ".WithArgumentCheck cannot be given to " + pkg + "." + fn + ": arguments are checked where the call enters the server, before a wrapped handler runs; give it to " + pkg + ".AddTool, or filter.WithArgumentCheck to the server's pipeline"}
}
