package mcperrtest

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Log captures the records a server writes through its logger. Give
// Log.Logger to filter.WithLogger. A Log is safe for concurrent use.
type Log struct {
	mu      sync.Mutex
	records []Record
}

// Record is one captured log record.
type Record struct {
	Time    time.Time
	Level   slog.Level
	Message string
	// Attrs holds the record's attributes, the logger's own included. A
	// group's attributes are flattened under dotted keys ("fields.resourceId").
	// Values are as slog.Value.Any returns them, LogValuers resolved; an
	// error value is kept as its text, as handlers write it.
	Attrs map[string]any
}

// String shows the record on one line: level, message, then the attributes
// sorted by key.
func (r Record) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q", r.Level, r.Message)
	for _, k := range slices.Sorted(maps.Keys(r.Attrs)) {
		fmt.Fprintf(&b, " %s=%q", k, fmt.Sprint(r.Attrs[k]))
	}
	return b.String()
}

// NewLog returns an empty Log. If the test fails, the records captured so
// far are written to its output when it ends.
func NewLog(tb testing.TB) *Log {
	tb.Helper()
	l := &Log{}
	tb.Cleanup(func() {
		if recs := l.Records(); tb.Failed() && len(recs) > 0 {
			tb.Logf("the server logged %d records:\n%s", len(recs), formatRecords(recs))
		}
	})
	return l
}

// Logger returns a logger that captures every record, at every level, into l.
func (l *Log) Logger() *slog.Logger {
	return slog.New(&captureHandler{log: l})
}

// Records returns the records captured so far, oldest first.
func (l *Log) Records() []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Record, len(l.records))
	for i, r := range l.records {
		r.Attrs = maps.Clone(r.Attrs)
		out[i] = r
	}
	return out
}

// WithRef returns the records that name ref: those whose "ref" attribute is
// ref, or whose message or any text attribute contains it. A server error's
// ref must be named by exactly one.
func (l *Log) WithRef(ref string) []Record {
	var out []Record
	for _, r := range l.Records() {
		if names(r, ref) {
			out = append(out, r)
		}
	}
	return out
}

// names reports whether r names ref.
func names(r Record, ref string) bool {
	if ref == "" {
		return false
	}
	if strings.Contains(r.Message, ref) {
		return true
	}
	for _, v := range r.Attrs {
		if s, ok := v.(string); ok && strings.Contains(s, ref) {
			return true
		}
		if s, ok := v.(fmt.Stringer); ok && strings.Contains(s.String(), ref) {
			return true
		}
	}
	return false
}

// formatRecords shows records one a line, indented.
func formatRecords(recs []Record) string {
	var b strings.Builder
	for _, r := range recs {
		b.WriteString("\t")
		b.WriteString(r.String())
		b.WriteString("\n")
	}
	return b.String()
}

// captureHandler is the slog.Handler of a Log's logger.
type captureHandler struct {
	log    *Log
	prefix string         // the dotted groups opened with WithGroup
	attrs  map[string]any // attributes added with WithAttrs, flattened
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *captureHandler) Handle(_ context.Context, rec slog.Record) error {
	attrs := maps.Clone(h.attrs)
	if attrs == nil {
		attrs = make(map[string]any, rec.NumAttrs())
	}
	rec.Attrs(func(a slog.Attr) bool {
		flatten(attrs, h.prefix, a)
		return true
	})
	h.log.mu.Lock()
	defer h.log.mu.Unlock()
	h.log.records = append(h.log.records, Record{Time: rec.Time, Level: rec.Level, Message: rec.Message, Attrs: attrs})
	return nil
}

func (h *captureHandler) WithAttrs(as []slog.Attr) slog.Handler {
	attrs := maps.Clone(h.attrs)
	if attrs == nil {
		attrs = make(map[string]any, len(as))
	}
	for _, a := range as {
		flatten(attrs, h.prefix, a)
	}
	return &captureHandler{log: h.log, prefix: h.prefix, attrs: attrs}
}

func (h *captureHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &captureHandler{log: h.log, prefix: h.prefix + name + ".", attrs: h.attrs}
}

// flatten adds a to into under prefix, a group's attributes under dotted
// keys, as slog's handlers treat them: an empty attribute and an empty
// group are dropped, a group without a key is inlined.
func flatten(into map[string]any, prefix string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			flatten(into, p, g)
		}
		return
	}
	v := a.Value.Any()
	if err, ok := v.(error); ok {
		// An error value, such as the record's "error", is kept as the
		// text the handler writes.
		v = err.Error()
	}
	into[prefix+a.Key] = v
}
