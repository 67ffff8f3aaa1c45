package pgxfilter_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/adapters/mcpgo/mcpgotest"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/pgxfilter"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// canary is a secret in the rows and in the errors' text: it must reach
// the log, and never the client.
const canary = "canary-7f3a-s3cr3t"

// tcase is one error a tool returns and what the client must read of it.
type tcase struct {
	name    string          // the tool's name
	filters []filter.Filter // bound to the tool, before the global pgxfilter.New()
	// run provokes the error, as the tool's body; the tool wraps what it
	// returns with the canary, as a service layer wraps with the values
	// it worked on.
	run  func(ctx context.Context) error
	want want
	// readOnly annotates the tool read-only; otherwise it has no
	// annotations, and may change things.
	readOnly bool
}

// want is what the client reads of one answer, and what the log keeps.
type want struct {
	code    codes.Code
	message string
	retry   bool
	after   time.Duration // the retry delay sent; 0 for none
	details string        // the details' JSON exactly; "" for none
	masked  bool          // INTERNAL_ERROR, masked: only that is checked
	logged  []string      // what the log record's error holds, besides the canary
	unknown bool          // the outcome is unknown: the call may have taken effect
}

// caller calls a tool the way an MCP client does; both SDKs' test clients
// are callers.
type caller interface {
	Call(name string, args any) *mcperrtest.Result
}

// onBothSDKs serves each case as a tool on a go-sdk server and on an
// mcp-go server, each with pgxfilter.New() as its global filter and a log
// of its own, calls each through the SDK's own client, and checks the
// answer.
func onBothSDKs(t *testing.T, cases []tcase) {
	t.Helper()
	onBothSDKsWith(t, mustNew(), cases)
}

// onBothSDKsWith does what onBothSDKs does, with global as the servers'
// global filter.
func onBothSDKsWith(t *testing.T, global filter.Filter, cases []tcase) {
	t.Helper()
	t.Run("go-sdk", func(t *testing.T) {
		log := mcperrtest.NewLog(t)
		s := gomcp.NewServer(&gomcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
		if err := gosdk.Install(s, pipeline(t, log, global)); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			run := wrapped(c)
			err := gosdk.AddTool(s, &gomcp.Tool{Name: c.name, Annotations: &gomcp.ToolAnnotations{ReadOnlyHint: c.readOnly}},
				func(ctx context.Context, _ *gomcp.CallToolRequest, _ struct{}) (*gomcp.CallToolResult, any, error) {
					return nil, nil, run(ctx)
				},
				filter.WithFilters(c.filters...))
			if err != nil {
				t.Fatal(err)
			}
		}
		checkAll(t, gosdktest.Connect(t, s), log, cases)
	})
	t.Run("mcp-go", func(t *testing.T) {
		log := mcperrtest.NewLog(t)
		s := server.NewMCPServer("shop", "1.0.0")
		if err := mcpgo.Install(s, pipeline(t, log, global)); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			run := wrapped(c)
			err := mcpgo.AddTool(s, mcpgomcp.NewTool(c.name, mcpgomcp.WithReadOnlyHintAnnotation(c.readOnly)),
				func(ctx context.Context, _ mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
					return nil, run(ctx)
				},
				filter.WithFilters(c.filters...))
			if err != nil {
				t.Fatal(err)
			}
		}
		checkAll(t, mcpgotest.Connect(t, s), log, cases)
	})
}

// wrapped returns the body of c's tool: run, its error wrapped with the
// canary. A run that succeeds is a tool that succeeds.
func wrapped(c tcase) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if err := c.run(ctx); err != nil {
			return fmt.Errorf("%s for customer %s: %w", c.name, canary, err)
		}
		return nil
	}
}

// mustNew returns pgxfilter.New(opts...), and panics on a definition
// error: the tests' options are right.
func mustNew(opts ...pgxfilter.Option) filter.Filter {
	f, err := pgxfilter.New(opts...)
	if err != nil {
		panic(err)
	}
	return f
}

// pipeline returns a pipeline with global as its global filter that logs
// into log.
func pipeline(t *testing.T, log *mcperrtest.Log, global filter.Filter) *filter.Pipeline {
	t.Helper()
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(global))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkAll calls each case's tool in turn and checks the answer.
func checkAll(t *testing.T, c caller, log *mcperrtest.Log, cases []tcase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := c.Call(tc.name, map[string]any{})
			check(t, res, log, tc.want)
		})
	}
}

// check checks one answer against w: what the client read, that the
// canary is nowhere in it, and that the log record of the answer keeps
// the original error.
func check(t *testing.T, res *mcperrtest.Result, log *mcperrtest.Log, w want) {
	t.Helper()
	mcperrtest.AssertNoCanary(t, res, canary)
	if w.masked {
		if ref := mcperrtest.AssertMasked(t, res, log); ref != "" {
			assertLogged(t, log, res, append([]string{canary}, w.logged...)...)
		}
		return
	}
	if !mcperrtest.AssertToolError(t, res, w.code, w.message) {
		return
	}
	env := res.Envelope
	if env.Retryable != w.retry || (env.Outcome == "unknown") != w.unknown {
		t.Errorf("retryable = %t, outcome %q; want %t, outcome unknown %t", env.Retryable, env.Outcome, w.retry, w.unknown)
	}
	if got, want := env.RetryAfterSeconds, w.after.Seconds(); got != want {
		t.Errorf("retryAfterSeconds = %v, want %v", got, want)
	}
	if got := string(env.Details); got != w.details {
		t.Errorf("details = %s, want %s", got, w.details)
	}
	server := env.Category == codes.Server
	if server != (env.Ref != "") {
		t.Errorf("category %s with ref %q: a server error, and only one, has a ref", env.Category, env.Ref)
	}
	assertLogged(t, log, res, append([]string{canary}, w.logged...)...)
}

// assertLogged checks that the one record of the answer res keeps the
// original error: its text holds each of want. A server error's record is
// the one its ref names; a client error's, the last one written.
func assertLogged(t *testing.T, log *mcperrtest.Log, res *mcperrtest.Result, want ...string) {
	t.Helper()
	var recs []mcperrtest.Record
	if res.Envelope != nil && res.Envelope.Ref != "" {
		recs = log.WithRef(res.Envelope.Ref)
	} else if all := log.Records(); len(all) > 0 {
		recs = all[len(all)-1:]
	}
	if len(recs) != 1 {
		t.Errorf("found %d records of the answer, want 1", len(recs))
		return
	}
	text, _ := recs[0].Attrs["error"].(string)
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the record's error is %q, want it to hold %q", text, w)
		}
	}
}
