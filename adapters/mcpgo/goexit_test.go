package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// installedEntry is one way of adding a tool to a server where Install was
// called.
type installedEntry struct {
	name string
	add  func(t *testing.T, s *server.MCPServer, tool mcp.Tool, h server.ToolHandlerFunc)
}

// installedEntries are every way of adding a tool under Install.
var installedEntries = []installedEntry{
	{"s.AddTool", func(_ *testing.T, s *server.MCPServer, tool mcp.Tool, h server.ToolHandlerFunc) {
		s.AddTool(tool, h)
	}},
	{"mcpgo.AddTool", func(t *testing.T, s *server.MCPServer, tool mcp.Tool, h server.ToolHandlerFunc) {
		if err := mcpgo.AddTool(s, tool, h); err != nil {
			t.Fatal(err)
		}
	}},
	{"s.AddTool+mcpgo.Wrap", func(_ *testing.T, s *server.MCPServer, tool mcp.Tool, h server.ToolHandlerFunc) {
		s.AddTool(tool, mcpgo.Wrap(h))
	}},
}

// refRE is a ref as the default generator makes it.
var refRE = regexp.MustCompile(`^[0-9a-f]{16}$`)

// callUnanswered calls tool on its own goroutine, where mcp-go's
// in-process client runs the server's handling, and returns what came back
// within adaptertest.NoAnswerWait: ErrNoAnswer if the call did not return,
// whether its goroutine ended or it is still waiting. Over streamable HTTP,
// mcp-go runs the handler on net/http's goroutine for the connection, and
// net/http closes a connection whose handler ended its goroutine without
// writing a response: the client reads EOF where a response should be,
// which is no answer either.
func callUnanswered(t *testing.T, c *client.Client, tool string) adaptertest.Result {
	t.Helper()
	return adaptertest.CallOrNoAnswer(adaptertest.NoAnswerWait, func(ctx context.Context) adaptertest.Result {
		req := mcp.CallToolRequest{}
		req.Params.Name = tool
		res, err := c.CallTool(ctx, req)
		var te *transport.Error
		if errors.As(err, &te) && errors.Is(err, io.EOF) {
			return adaptertest.Result{ProtocolErr: fmt.Errorf("%w: the connection closed without a response: %w", adaptertest.ErrNoAnswer, err)}
		}
		return resultOf(t, res, err)
	})
}

// TestGoexit checks a handler that calls runtime.Goexit, however the tool
// was added under Install: exactly one ERROR record with a ref says so;
// the call is not answered, as net/http leaves such a request; and the
// next call on the same client is answered normally.
func TestGoexit(t *testing.T) {
	for _, e := range installedEntries {
		t.Run(e.name, func(t *testing.T) {
			var log adaptertest.Log
			s := installed(t, testPipeline(log.Logger()))
			e.add(t, s, mcp.NewTool("exit"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runtime.Goexit()
				return nil, errors.New("unreachable")
			})
			e.add(t, s, mcp.NewTool("ok"), hostileHandler(nil))
			c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
			log.Records(t)

			if r := callUnanswered(t, c, "exit"); !adaptertest.Unanswered(r) {
				t.Errorf("the call was answered with %s %v; want no answer", r.Raw, r.ProtocolErr)
			}
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

			adaptertest.CheckServing(t, call(t, c, "ok", nil))
			if recs := log.Records(t); len(recs) != 0 {
				t.Errorf("records after the next call: %v", recs)
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
		name  string
		value any
		logs  string
	}{
		{"panic(nil)", nil, "panic called with nil argument"},
		{"panic(http.ErrAbortHandler)", http.ErrAbortHandler, http.ErrAbortHandler.Error()},
	} {
		for _, e := range installedEntries {
			for _, via := range []string{"in-process", "http"} {
				t.Run(v.name+"/"+e.name+"/"+via, func(t *testing.T) {
					var log adaptertest.Log
					s := installed(t, testPipeline(log.Logger()))
					e.add(t, s, mcp.NewTool("x"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						panic(v.value)
					})
					e.add(t, s, mcp.NewTool("ok"), hostileHandler(nil))
					var c *client.Client
					if via == "http" {
						c = overHTTP(t, s, mcp.LATEST_PROTOCOL_VERSION)
					} else {
						c = inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
					}
					log.Records(t)

					r := guardedCall(t, c, "x", nil)
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
					checkServing(t, c)
				})
			}
		}
	}
}

// TestPanicIsNotReclassified checks that a panic is masked whatever the
// arguments: only an error a handler returns is checked against the
// schema, so a panic in a call whose arguments do not fit is still
// INTERNAL_ERROR, with a ref, logged once with its stack.
func TestPanicIsNotReclassified(t *testing.T) {
	for _, e := range installedEntries {
		t.Run(e.name, func(t *testing.T) {
			var log adaptertest.Log
			s := installed(t, testPipeline(log.Logger()))
			e.add(t, s, mcp.NewTool("x", mcp.WithNumber("n", mcp.Required())), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				panic("nil map write near " + adaptertest.Canary)
			})
			c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
			log.Records(t)
			adaptertest.Check(t, adaptertest.Case{Tool: "x", Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
				Text: `Internal error in tool "x" (ref: {ref}).`, Masked: true, Logged: 1,
				LogContains: []string{"nil map write near " + adaptertest.Canary, "goroutine"}}},
				guardedCall(t, c, "x", map[string]any{"n": "not a number"}), log.Records(t))
		})
	}
}

// exited is what the record of a handler that called runtime.Goexit says.
const exited = "the handler called runtime.Goexit"
