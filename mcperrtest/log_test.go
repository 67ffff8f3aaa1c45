package mcperrtest_test

import (
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/mcperr/mcperr/mcperrtest"
)

type orderID string

func (o orderID) LogValue() slog.Value { return slog.StringValue("order " + string(o)) }

func TestLogCapturesRecordsFlattened(t *testing.T) {
	log := mcperrtest.NewLog(t)
	logger := log.Logger().With("service", "orders").WithGroup("call")
	logger.Debug("debug too")
	logger.Error("tool call failed",
		slog.String("ref", "9b1c04e2d7a35f68"),
		slog.Group("fields", slog.String("resource_id", "ord_1"), slog.Group("deep", slog.Int("n", 3))),
		slog.Group("", slog.Bool("inlined", true)),
		slog.Any("order", orderID("ord_1")),
		slog.Group("empty"),
	)
	recs := log.Records()
	if len(recs) != 2 || recs[0].Level != slog.LevelDebug || recs[1].Level != slog.LevelError || recs[1].Message != "tool call failed" {
		t.Fatalf("records = %v", recs)
	}
	want := map[string]any{
		"service": "orders", "call.ref": "9b1c04e2d7a35f68", "call.fields.resource_id": "ord_1",
		"call.fields.deep.n": int64(3), "call.inlined": true, "call.order": "order ord_1",
	}
	got := recs[1].Attrs
	if len(got) != len(want) {
		t.Errorf("attrs = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("attrs[%q] = %#v, want %#v", k, got[k], v)
		}
	}
	if recs[1].Time.IsZero() {
		t.Error("a record has no time")
	}
	recs[1].Attrs["service"] = "changed"
	if log.Records()[1].Attrs["service"] != "orders" {
		t.Error("Records returns the Log's own maps")
	}
}

func TestLogWithRef(t *testing.T) {
	log := mcperrtest.NewLog(t)
	l := log.Logger()
	l.Error("tool call failed", "ref", "aaaa000000000001")
	l.Info("tool call failed", "ref", "aaaa000000000002")
	l.Warn("someone mentions aaaa000000000002 in a message")
	l.Warn("and in an attribute", "note", "see aaaa000000000002")
	if got := log.WithRef("aaaa000000000001"); len(got) != 1 || got[0].Level != slog.LevelError {
		t.Errorf("WithRef(…1) = %v", got)
	}
	if got := log.WithRef("aaaa000000000002"); len(got) != 3 {
		t.Errorf("WithRef(…2) = %v, want 3 records", got)
	}
	if got := log.WithRef(""); got != nil {
		t.Errorf(`WithRef("") = %v`, got)
	}
}

func TestLogIsSafeForConcurrentUse(t *testing.T) {
	log := mcperrtest.NewLog(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			l := log.Logger().With("worker", i)
			for range 50 {
				l.Info("tool call failed")
				_ = log.Records()
			}
		})
	}
	wg.Wait()
	if n := len(log.Records()); n != 400 {
		t.Errorf("captured %d records, want 400", n)
	}
}

func TestRecordString(t *testing.T) {
	r := mcperrtest.Record{Level: slog.LevelError, Message: "tool call failed", Attrs: map[string]any{"tool": "lookup", "code": "INTERNAL_ERROR"}}
	if got, want := r.String(), `ERROR "tool call failed" code="INTERNAL_ERROR" tool="lookup"`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}

func TestNewLogShowsRecordsWhenTheTestFails(t *testing.T) {
	f := &fakeTB{}
	f.Run(func(tb testing.TB) {
		log := mcperrtest.NewLog(tb)
		log.Logger().Error("tool call failed", "ref", "9b1c04e2d7a35f68")
		tb.Errorf("something was wrong")
	})
	if len(f.Logs()) != 1 || !strings.Contains(f.Logs()[0], `the server logged 1 records:`) || !strings.Contains(f.Logs()[0], `ref="9b1c04e2d7a35f68"`) {
		t.Errorf("logged %q", f.Logs())
	}
	quiet := &fakeTB{}
	quiet.Run(func(tb testing.TB) {
		mcperrtest.NewLog(tb).Logger().Info("tool call failed")
	})
	if len(quiet.Logs()) != 0 {
		t.Errorf("a passing test logged %q", quiet.Logs())
	}
}
