package filter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/filter"
)

func TestLogHandler(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(filter.LogHandler(slog.NewJSONHandler(&buf, nil))).With("app", "orders")
	ctx := filter.Served(context.Background(), filter.Call{Tool: "get_order", SessionID: "sess-1"})

	records := func() []map[string]any {
		t.Helper()
		var out []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			out = append(out, m)
		}
		buf.Reset()
		return out
	}

	logger.InfoContext(ctx, "querying replica", "replica", "r2")
	logger.InfoContext(ctx, "again")
	recs := records()
	id := filter.RequestIDFromContext(ctx)
	for _, r := range recs {
		if r["request_id"] != id || r["tool"] != "get_order" || r["session_id"] != "sess-1" || r["app"] != "orders" {
			t.Errorf("record %v, want the call's request_id, tool and session, and the logger's own attributes", r)
		}
	}

	// Outside a request: untouched. A record that names its request
	// already, as the pipeline's own do: untouched.
	logger.Info("start-up")
	logger.InfoContext(ctx, "tool call failed", "request_id", "other")
	recs = records()
	if _, ok := recs[0]["request_id"]; ok {
		t.Errorf("a record outside a request got a request_id: %v", recs[0])
	}
	if recs[1]["request_id"] != "other" || recs[1]["tool"] != nil {
		t.Errorf("a record with its own request_id was changed: %v", recs[1])
	}
}
