package errgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"unicode/utf8"
)

// Log is a JSON log in memory, safe for concurrent use.
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// Handler returns a JSON handler writing every level into l.
func (l *Log) Handler() slog.Handler {
	return slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug})
}

// Logger returns a logger writing every level into l.
func (l *Log) Logger() *slog.Logger { return slog.New(l.Handler()) }

// Take returns the records written since the last Take and forgets them.
func (l *Log) Take() ([]Record, error) {
	l.mu.Lock()
	out := bytes.Clone(l.buf.Bytes())
	l.buf.Reset()
	l.mu.Unlock()
	return Records(out)
}

// Record is one JSON log record.
type Record struct {
	Raw    string
	Fields map[string]any
}

// Str returns the string attribute key, or "".
func (r Record) Str(key string) string {
	s, _ := r.Fields[key].(string)
	return s
}

// Records parses JSON log records, one a line.
func Records(out []byte) ([]Record, error) {
	var recs []Record
	for line := range bytes.Lines(out) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			return recs, fmt.Errorf("a log line is not JSON (%v): %s", err, Cut(string(line)))
		}
		recs = append(recs, Record{Raw: string(line), Fields: m})
	}
	return recs, nil
}

// Longest returns the longest string, value or key, in a decoded JSON value,
// in runes (one byte of invalid UTF-8 becomes three bytes of U+FFFD in JSON,
// but one rune), and where it is.
func Longest(v any) (n int, where string) {
	switch v := v.(type) {
	case string:
		return utf8.RuneCountInString(v), Cut(v)
	case map[string]any:
		for k, x := range v {
			if m := utf8.RuneCountInString(k); m > n {
				n, where = m, "key "+Cut(k)
			}
			if m, w := Longest(x); m > n {
				n, where = m, k+": "+w
			}
		}
	case []any:
		for _, x := range v {
			if m, w := Longest(x); m > n {
				n, where = m, w
			}
		}
	}
	return n, where
}

// Cut shortens s for a failure message.
func Cut(s string) string {
	if len(s) > 300 {
		return s[:300] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}
