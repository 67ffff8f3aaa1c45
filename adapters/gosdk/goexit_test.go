package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// behaviour is what a tool of these tests does: nil means it answers "all
// good"; otherwise it may fail, panic or end its goroutine.
type behaviour func(ctx context.Context) error

// typedOf runs do as a typed handler.
func typedOf(do behaviour) mcp.ToolHandlerFor[map[string]any, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		if do != nil {
			if err := do(ctx); err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "all good"}}}, nil, nil
	}
}

// rawOf runs do as a raw handler.
func rawOf(do behaviour) mcp.ToolHandler {
	return func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if do != nil {
			if err := do(ctx); err != nil {
				return nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "all good"}}}, nil
	}
}

// entry is one way of adding a tool to a server where Install was called.
type entry struct {
	name string
	add  func(t *testing.T, s *mcp.Server, name string, do behaviour)
}

// entries are every way of adding a tool under Install.
var entries = []entry{
	{"mcp.AddTool", func(_ *testing.T, s *mcp.Server, name string, do behaviour) {
		mcp.AddTool(s, &mcp.Tool{Name: name}, typedOf(do))
	}},
	{"Server.AddTool", func(_ *testing.T, s *mcp.Server, name string, do behaviour) {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: adaptertest.EmptySchema}, rawOf(do))
	}},
	{"gosdk.Wrap", func(_ *testing.T, s *mcp.Server, name string, do behaviour) {
		mcp.AddTool(s, &mcp.Tool{Name: name}, gosdk.Wrap(typedOf(do)))
	}},
	{"gosdk.WrapRaw", func(_ *testing.T, s *mcp.Server, name string, do behaviour) {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: adaptertest.EmptySchema}, gosdk.WrapRaw(rawOf(do)))
	}},
	{"gosdk.AddTool", func(t *testing.T, s *mcp.Server, name string, do behaviour) {
		must(t, gosdk.AddTool(s, &mcp.Tool{Name: name}, typedOf(do)))
	}},
	{"gosdk.AddRawTool", func(t *testing.T, s *mcp.Server, name string, do behaviour) {
		must(t, gosdk.AddRawTool(s, &mcp.Tool{Name: name, InputSchema: adaptertest.EmptySchema}, rawOf(do)))
	}},
}

// signalLog is a log that also signals, without blocking, each record
// written, so that a test can wait for a record of a call that is never
// answered.
type signalLog struct {
	adaptertest.Log
	written chan struct{}
}

func newSignalLog() *signalLog { return &signalLog{written: make(chan struct{}, 64)} }

func (l *signalLog) Write(p []byte) (int, error) {
	n, err := l.Log.Write(p)
	select {
	case l.written <- struct{}{}:
	default:
	}
	return n, err
}

// Logger returns a logger that writes into l at every level.
func (l *signalLog) Logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// wait waits up to ten seconds for a record to be written.
func (l *signalLog) wait(t *testing.T) {
	t.Helper()
	select {
	case <-l.written:
	case <-time.After(10 * time.Second):
		t.Fatal("no log record was written")
	}
}

// connectAfterGoexit connects a new client to s over in-memory transports
// and lists the tools, for a test in which a handler calls runtime.Goexit.
// Its cleanup closes the client, but does not wait for the server session
// to end: it never does. The SDK counts the unanswered call as in flight
// for as long as the session lives, so ServerSession.Wait, and Server.Run,
// do not return.
func connectAfterGoexit(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	_, err := s.Connect(ctx, st, nil)
	must(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	must(t, err)
	t.Cleanup(func() { cs.Close() })
	listTools(t, cs)
	return cs
}

// refRE is a ref as the default generator makes it.
var refRE = regexp.MustCompile(`^[0-9a-f]{16}$`)

// TestGoexit checks a handler that calls runtime.Goexit, however the tool
// was added under Install: exactly one ERROR record with a ref says so;
// the call is not answered, as net/http leaves such a request; and the
// next call on the same session is answered normally.
func TestGoexit(t *testing.T) {
	for _, e := range entries {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel() // each waits out its unanswered call
			log := newSignalLog()
			p, err := filter.New(filter.WithLogger(log.Logger()))
			must(t, err)
			s := mcp.NewServer(&mcp.Implementation{Name: "goexit", Version: "1.0.0"}, nil)
			must(t, gosdk.Install(s, p))
			e.add(t, s, "exit", func(context.Context) error {
				runtime.Goexit()
				return errors.New("unreachable")
			})
			e.add(t, s, "ok", nil)
			cs := connectAfterGoexit(t, s)

			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exit"})
			if !errors.Is(err, context.DeadlineExceeded) {
				raw, _ := json.Marshal(res)
				t.Errorf("the call was answered with %s, %v; want no answer", raw, err)
			}
			log.wait(t)
			recs := log.Records(t)
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1: %v", len(recs), recs)
			}
			rec := recs[0]
			ref, _ := rec["ref"].(string)
			if rec["level"] != "ERROR" || rec["tool"] != "exit" || rec["code"] != string(codes.InternalError) || !refRE.MatchString(ref) {
				t.Errorf("record %v, want an ERROR record of tool exit, INTERNAL_ERROR, with a ref", rec)
			}
			if text, _ := rec["error"].(string); !strings.Contains(text, exited) {
				t.Errorf("the record's error %q does not say %q", text, exited)
			}

			r := callBounded(t, cs, "ok", nil)
			if r.ProtocolErr != nil || r.IsError || len(r.Texts) != 1 || r.Texts[0] != "all good" {
				t.Errorf("the next call got %s %v, want its success", r.Raw, r.ProtocolErr)
			}
			if recs := log.Records(t); len(recs) != 0 {
				t.Errorf("records after the call: %v", recs)
			}
		})
	}
}

// TestPanicValues checks panics whose values Go and net/http treat
// specially, panic(nil), which Go reports as a *runtime.PanicNilError, and
// panic(http.ErrAbortHandler): like any panic, the call is answered masked
// with a ref, which names exactly one ERROR record, and the server goes
// on.
func TestPanicValues(t *testing.T) {
	for _, v := range []struct {
		name string
		do   behaviour
		logs string
	}{
		{"panic(nil)", func(context.Context) error { panic(nil) }, "panic called with nil argument"},
		{"panic(http.ErrAbortHandler)", func(context.Context) error { panic(http.ErrAbortHandler) }, http.ErrAbortHandler.Error()},
	} {
		for _, e := range entries {
			t.Run(v.name+"/"+e.name, func(t *testing.T) {
				var log adaptertest.Log
				s := mcp.NewServer(&mcp.Implementation{Name: "panics", Version: "1.0.0"}, nil)
				must(t, gosdk.Install(s, newPipeline(t, &log)))
				e.add(t, s, "x", v.do)
				e.add(t, s, "ok", nil)
				cs := connectBounded(t, s)

				r := callBounded(t, cs, "x", nil)
				if r.ProtocolErr != nil || !r.IsError || len(r.Texts) == 0 {
					t.Fatalf("got %s %v, want an error result", r.Raw, r.ProtocolErr)
				}
				m := adaptertest.MaskedTextRE.FindStringSubmatch(r.Texts[0])
				if m == nil || m[1] != "x" {
					t.Fatalf("text %q, want the masked text of tool x", r.Texts[0])
				}
				if env := r.Envelope(); env["code"] != string(codes.InternalError) || env["ref"] != m[2] {
					t.Errorf("envelope %v, want INTERNAL_ERROR with ref %s", env, m[2])
				}
				recs := log.Records(t)
				if len(recs) != 1 || recs[0]["level"] != "ERROR" || recs[0]["ref"] != m[2] {
					t.Fatalf("records %v, want one ERROR record with ref %s", recs, m[2])
				}
				if rec, _ := json.Marshal(recs[0]); !strings.Contains(string(rec), v.logs) {
					t.Errorf("the record does not hold %q: %s", v.logs, rec)
				}
				r = callBounded(t, cs, "ok", nil)
				if r.ProtocolErr != nil || r.IsError {
					t.Errorf("the next call got %s %v, want its success", r.Raw, r.ProtocolErr)
				}
			})
		}
	}
}

// exited is what the record of a handler that called runtime.Goexit says.
const exited = "the handler called runtime.Goexit"
