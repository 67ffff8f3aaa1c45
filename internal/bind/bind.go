// Package bind attaches mcperr's state to values it does not own, such as an
// SDK's server or session, and checks the filters given to an adapter.
package bind

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
	"weak"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/isolate"
	"github.com/mcperr/mcperr/internal/nilness"
)

// Table maps values of type K, by identity, to a *V. It holds its keys
// weakly: an entry goes when its key is garbage collected, so a server or
// session that is dropped is not kept alive by the table. The zero Table is
// ready to use and safe for concurrent use. A lookup of a key already
// present allocates nothing.
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
	v := t.m[wp]
	t.mu.RUnlock()
	return v
}

// LoadOrStore returns the value of k if it has one, and loaded true;
// otherwise it stores v for k and returns v and false.
func (t *Table[K, V]) LoadOrStore(k *K, v *V) (actual *V, loaded bool) {
	wp := weak.Make(k)
	t.mu.RLock()
	old := t.m[wp]
	t.mu.RUnlock()
	if old != nil {
		return old, true
	}
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

// Store sets the value of k to v, unless it is v already.
func (t *Table[K, V]) Store(k *K, v *V) {
	if k == nil {
		return
	}
	if actual, loaded := t.LoadOrStore(k, v); loaded && actual != v {
		wp := weak.Make(k)
		t.mu.Lock()
		t.m[wp] = v
		t.mu.Unlock()
	}
}

// Len returns the number of entries.
func (t *Table[K, V]) Len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.m)
}

func (t *Table[K, V]) forget(wp weak.Pointer[K]) {
	t.mu.Lock()
	delete(t.m, wp)
	t.mu.Unlock()
}

// CheckFilters returns a *codes.DefinitionError with code codes.NilFilter if
// any of filters is nil, a nil filter.Func or a nil pointer, naming what it
// was given to.
func CheckFilters(to string, filters []filter.Filter) error {
	for i, f := range filters {
		if nilness.IsNil(f) {
			return &codes.DefinitionError{Code: codes.NilFilter,
				Reason: "filter " + strconv.Itoa(i) + " given to " + to + " is nil; pass a filter.Filter, a filter.Func or a filter.Catch"}
		}
	}
	return nil
}

// Conflict returns the definition error of a second configuration given to
// a server by pkg's Install, or nil if it is the same as the first. first
// says whether the first configuration came from Install too, rather than
// from an AddTool that installed the default one.
func Conflict(pkg string, first, same bool) error {
	switch {
	case first && same:
		return nil
	case !first:
		return &codes.DefinitionError{Code: codes.ConflictingConfiguration,
			Reason: "tools were added to this server with " + pkg + ".AddTool before " + pkg + ".Install, so it runs with the default configuration; call " + pkg + ".Install first"}
	}
	return &codes.DefinitionError{Code: codes.ConflictingConfiguration,
		Reason: "mcperr is already installed on this server with another configuration; call " + pkg + ".Install once per server and share one *filter.Pipeline"}
}

// Warn writes one record at level to slog.Default, and to standard error if
// the default handler panics or fails, so that a warning about how a server
// is put together can never take a call down with it.
func Warn(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	rec := slog.NewRecord(time.Now(), level, msg, 0)
	rec.AddAttrs(attrs...)
	// The handler runs on a goroutine of its own: one that calls
	// runtime.Goexit must not end the caller's.
	r := isolate.NewRunner(func(c warnCall) error { return handle(c.ctx, c.h, c.rec) })
	err, ended := r.Run(warnCall{ctx: ctx, h: slog.Default().Handler(), rec: rec})
	if ended.Failed() {
		err = errors.New("the log handler did not return")
	}
	if err != nil {
		rec.AddAttrs(slog.String("log_handler_error", err.Error()))
		_ = handle(ctx, slog.NewTextHandler(os.Stderr, nil), rec)
	}
}

// warnCall is one record for Warn.
type warnCall struct {
	ctx context.Context
	h   slog.Handler
	rec slog.Record
}

// handle hands rec to h, turning a panic into an error.
func handle(ctx context.Context, h slog.Handler, rec slog.Record) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the log handler %T panicked", h)
		}
	}()
	if !h.Enabled(ctx, rec.Level) {
		return nil
	}
	return h.Handle(ctx, rec)
}
