package filter

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcperr/mcperr/toolerr"
)

// recordCounter is a log handler that keeps every record it is given. If
// exit is set, its Handle (or Enabled) calls runtime.Goexit the first time,
// without keeping the record.
type recordCounter struct {
	mu      sync.Mutex
	records []slog.Record
	exit    atomic.Bool // Handle calls runtime.Goexit once
	exitEn  atomic.Bool // Enabled calls runtime.Goexit once
}

func (c *recordCounter) Enabled(context.Context, slog.Level) bool {
	if c.exitEn.CompareAndSwap(true, false) {
		runtime.Goexit()
	}
	return true
}

func (c *recordCounter) Handle(_ context.Context, r slog.Record) error {
	if c.exit.CompareAndSwap(true, false) {
		runtime.Goexit()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.records = append(c.records, r.Clone())
	return nil
}

func (c *recordCounter) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *recordCounter) WithGroup(string) slog.Handler      { return c }

// take returns the records kept since the last take.
func (c *recordCounter) take() []slog.Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.records
	c.records = nil
	return out
}

// attrs returns the attributes of r by key, as text.
func attrs(r slog.Record) map[string]string {
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	return m
}

// exitFilter is a filter that calls runtime.Goexit.
var exitFilter = Catch(func(context.Context, Call, error) (*Response, error) {
	runtime.Goexit()
	return nil, nil
})

// exitOnce returns a function that calls runtime.Goexit the first time it
// is called, and returns after: the code that calls it fails once, so that
// the next call through the same pipeline shows that it goes on.
func exitOnce() func() {
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			runtime.Goexit()
		}
	}
}

// TestGoexitIsLoggedOnce checks runtime.Goexit in each piece of code the
// pipeline runs: Handle does not return (the goroutine ends, as it must),
// exactly one ERROR record with a ref is written, through the last resort,
// the call's context is marked so that the adapter's layers write no
// other, and the pipeline goes on serving.
func TestGoexitIsLoggedOnce(t *testing.T) {
	type setup struct {
		opts    []Option
		filters []Filter
		err     error // a ToolError if nil
	}
	cases := map[string]func(logger *recordCounter) setup{
		"a tool's filter": func(*recordCounter) setup { return setup{filters: []Filter{exitFilter}} },
		"a global filter": func(*recordCounter) setup {
			exit := exitOnce()
			return setup{opts: []Option{WithFilters(Catch(func(context.Context, Call, error) (*Response, error) { exit(); return nil, nil }))}}
		},
		"a filter.Catch": func(*recordCounter) setup {
			return setup{filters: []Filter{Catch(func(context.Context, Call, *toolerr.ToolError) (*Response, error) {
				runtime.Goexit()
				return nil, nil
			})}}
		},
		"an observer": func(*recordCounter) setup {
			exit := exitOnce()
			return setup{opts: []Option{WithObserver(func(context.Context, Failure) { exit() })}}
		},
		"the renderer": func(*recordCounter) setup {
			exit := exitOnce()
			return setup{opts: []Option{WithRenderer(func(e Envelope) []string { exit(); return RenderForModel(e) })}}
		},
		"the ref generator": func(*recordCounter) setup {
			exit := exitOnce()
			return setup{opts: []Option{WithRefGenerator(func() string { exit(); return newRef() })}, err: errors.New("boom")}
		},
		"the log handler": func(l *recordCounter) setup { l.exit.Store(true); return setup{} },
		"the log handler's Enabled": func(l *recordCounter) setup {
			l.exitEn.Store(true)
			return setup{}
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			logger, last := &recordCounter{}, &recordCounter{}
			s := build(logger)
			p, err := New(append([]Option{WithLogger(slog.New(logger))}, s.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			p.fallback = last
			ctx := context.Context(p.enter(context.Background(), Call{}))
			call := Call{Tool: "lookup", SessionID: "s-1"}
			// A ToolError, so that the filter.Catch case matches, and so
			// that the record at error level is the Goexit's, not the
			// error's.
			var cause error = toolerr.New("No.")
			if s.err != nil {
				cause = s.err
			}

			returned := false
			done := make(chan struct{})
			go func() {
				defer close(done)
				p.Handle(ctx, call, cause, s.filters...)
				returned = true
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the goroutine of Handle did not end")
			}
			if returned {
				t.Fatal("Handle returned after runtime.Goexit")
			}
			recs := append(logger.take(), last.take()...)
			if len(recs) != 1 {
				t.Fatalf("%d records, want exactly one", len(recs))
			}
			rec := recs[0]
			a := attrs(rec)
			if rec.Level != slog.LevelError || !validRef(a["ref"]) || a["code"] != "INTERNAL_ERROR" || a["tool"] != "lookup" ||
				a["request_id"] != RequestIDFromContext(ctx) || !strings.Contains(a["pipeline_error"], "runtime.Goexit") {
				t.Errorf("record %s %q %v, want an ERROR record with a ref, the request id and the reason", rec.Level, rec.Message, a)
			}

			// The pipeline goes on: the next call is answered and logged.
			f := p.Handle(context.Background(), call, errors.New("boom"))
			if f == nil || f.Envelope.Code != "INTERNAL_ERROR" || f.Envelope.Ref == "" {
				t.Fatalf("the next call: %+v", f)
			}
			checkEnvelope(t, f.Envelope)
			if n := len(logger.take()) + len(last.take()); n != 1 {
				t.Errorf("the next call wrote %d records, want 1", n)
			}
		})
	}
}

// TestGoexitWithoutCallContext checks a Goexit in a pipeline called outside
// an adapter: one record all the same.
func TestGoexitWithoutCallContext(t *testing.T) {
	logger, last := &recordCounter{}, &recordCounter{}
	p, err := New(WithLogger(slog.New(logger)))
	if err != nil {
		t.Fatal(err)
	}
	p.fallback = last
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Handle(context.Background(), Call{Method: "prompts/get", Prompt: "p"}, errors.New("x"), exitFilter)
	}()
	<-done
	recs := append(logger.take(), last.take()...)
	if len(recs) != 1 || recs[0].Message != "prompt get failed" || attrs(recs[0])["prompt"] != "p" {
		t.Fatalf("records %v, want one for the prompt", recs)
	}
}
