package mcpgo_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// The ways a table server puts mcperr in place.
const (
	viaInstall   = "install"         // Install, tools added with s.AddTool
	viaWrap      = "install+wrap"    // Install, tools added with s.AddTool(tool, Wrap(h))
	viaAddTool   = "install+addtool" // Install, tools added with AddTool
	viaWrapAlone = "wrap"            // Wrap alone: no mcperr, the SDK's own answers
	viaBare      = "bare"            // no mcperr: the SDK alone
)

// allWays are the ways that give the whole contract. Wrap alone gives none
// of it: TestWrapWithoutInstall checks that it changes nothing.
var allWays = []string{viaInstall, viaWrap, viaAddTool}

// usesDefault reports whether way runs without a pipeline of the test's
// own, logging to slog.Default().
func usesDefault(way string) bool { return way == viaWrapAlone }

// The protocol versions a client may negotiate: the modern one this SDK's
// client asks for by default, and the latest before it.
var protocols = []string{mcp.LATEST_PROTOCOL_VERSION, mcp.LATEST_LEGACY_PROTOCOL_VERSION}

// Environment of the test binary when it runs as a stdio server.
const (
	stdioWayEnv = "MCPERR_MCPGO_STDIO_WAY"
	stdioLogEnv = "MCPERR_MCPGO_STDIO_LOG"
)

func TestMain(m *testing.M) {
	if way := os.Getenv(stdioWayEnv); way != "" {
		os.Exit(serveStdio(way, os.Getenv(stdioLogEnv)))
	}
	if os.Getenv(recursiveCycleEnv) != "" {
		os.Exit(callRecursiveCycle())
	}
	os.Exit(m.Run())
}

// serveStdio serves the table over stdin and stdout, logging to the file at
// logPath, until stdin closes.
func serveStdio(way, logPath string) int {
	f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer f.Close()
	logger := slog.New(slog.NewJSONHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
	slog.SetDefault(logger) // the logger of the default configuration
	s, err := tableServer(way, testPipeline(logger))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := server.ServeStdio(s); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// tableCodes registers the application codes the table uses.
var tableCodes = adaptertest.Registry()

// testPipeline returns a pipeline that logs to logger and knows the codes
// of the table.
func testPipeline(logger *slog.Logger, opts ...filter.Option) *filter.Pipeline {
	p, err := filter.New(append([]filter.Option{filter.WithLogger(logger), filter.WithRegistry(tableCodes)}, opts...)...)
	if err != nil {
		panic(err)
	}
	return p
}

// defaults returns a new pipeline with the default configuration, which
// logs to slog.Default.
func defaults() *filter.Pipeline {
	p, err := filter.New()
	if err != nil {
		panic(err)
	}
	return p
}

// tableServer returns a server with the tools of the table and mcperr put in
// place the way way says, with p as its configuration unless way uses the
// default one.
func tableServer(way string, p *filter.Pipeline) (*server.MCPServer, error) {
	return tableServerAround(way, p, nil, nil)
}

// tableServerAround is tableServer with the server options before given to
// the server and those of after applied once mcperr is in place.
func tableServerAround(way string, p *filter.Pipeline, before, after []server.ServerOption) (*server.MCPServer, error) {
	s := server.NewMCPServer("table", "1.0.0", before...)
	if way != viaBare && !usesDefault(way) {
		if err := mcpgo.Install(s, p); err != nil {
			return nil, err
		}
	}
	for _, opt := range after {
		opt(s)
	}
	for _, tool := range adaptertest.Tools() {
		def, h := toolDefinition(tool), tableHandler(tool)
		switch way {
		case viaWrap, viaWrapAlone:
			s.AddTool(def, mcpgo.Wrap(h))
		case viaAddTool:
			if err := mcpgo.AddTool(s, def, h); err != nil {
				return nil, err
			}
		default:
			s.AddTool(def, h)
		}
	}
	return s, nil
}

// useDefaultLogger makes logger the default until the test ends, so that
// the test reads what the default configuration logs.
func useDefaultLogger(t testing.TB, logger *slog.Logger) {
	old := slog.Default()
	slog.SetDefault(logger)
	t.Cleanup(func() { slog.SetDefault(old) })
}

// casesFor returns the cases of the table that way can answer: with the
// default configuration, which does not know the table's own codes, those
// that use none.
func casesFor(way string) []adaptertest.Case {
	cases := adaptertest.Cases()
	if !usesDefault(way) {
		return cases
	}
	return slices.DeleteFunc(cases, func(c adaptertest.Case) bool {
		_, builtin := (*codes.Registry)(nil).Lookup(c.Want.Code)
		return c.Want.Code != "" && !builtin
	})
}

// toolDefinition returns the mcp-go definition of a table tool.
func toolDefinition(tool adaptertest.Tool) mcp.Tool {
	def := mcp.NewToolWithRawSchema(tool.Name, tool.Description, tool.InputSchema)
	def.RawOutputSchema = tool.OutputSchema
	return def
}

// tableHandler returns a plain mcp-go handler for a table tool, written as a
// user of the SDK writes one.
func tableHandler(tool adaptertest.Tool) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		text, err := tool.Do(ctx, req.GetArguments())
		var self *adaptertest.SelfBuilt
		switch {
		case errors.As(err, &self):
			return mcp.NewToolResultError(self.Text), nil
		case err != nil:
			return nil, err
		case tool.OutputSchema != nil:
			return mcp.NewToolResultStructuredOnly(map[string]any{"text": text}), nil
		}
		return mcp.NewToolResultText(text), nil
	}
}

// connect starts c and initializes it with protocol version proto.
func connect(t testing.TB, c *client.Client, proto string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	ir := mcp.InitializeRequest{}
	ir.Params.ProtocolVersion = proto
	ir.Params.ClientInfo = mcp.Implementation{Name: "mcperr-test", Version: "0"}
	res, err := c.Initialize(ctx, ir)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ProtocolVersion != proto {
		t.Fatalf("negotiated protocol %s, want %s", res.ProtocolVersion, proto)
	}
}

// inProcess returns a client of s, in process, speaking proto.
func inProcess(t testing.TB, s *server.MCPServer, proto string) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	connect(t, c, proto)
	return c
}

// overHTTP returns a client of s over streamable HTTP on loopback.
func overHTTP(t testing.TB, s *server.MCPServer, proto string) *client.Client {
	t.Helper()
	ts := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(ts.Close)
	c, err := client.NewStreamableHttpClient(ts.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	connect(t, c, proto)
	return c
}

// call calls tool with args and returns what the client received.
func call(t testing.TB, c *client.Client, tool string, args map[string]any) adaptertest.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	if args != nil {
		req.Params.Arguments = args
	}
	res, err := c.CallTool(ctx, req)
	return resultOf(t, res, err)
}

// resultOf converts what an mcp-go client received into the table's form.
func resultOf(t testing.TB, res *mcp.CallToolResult, err error) adaptertest.Result {
	t.Helper()
	if err != nil {
		return adaptertest.Result{ProtocolErr: err}
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("encode result: %v", err)
	}
	r := adaptertest.Result{IsError: res.IsError, Raw: raw, StructuredContent: res.StructuredContent}
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			r.Texts = append(r.Texts, tc.Text)
		}
	}
	if res.Meta != nil {
		r.Meta = res.Meta.AdditionalFields
	}
	r.Typed, _ = mcpgo.EnvelopeOf(res)
	return r
}

// recorder is where a test reads the records a server logged.
type recorder interface {
	Records(t testing.TB) []map[string]any
}

// runTable runs every case of the table that way can answer through c and
// checks what the client received and what the server logged.
func runTable(t *testing.T, way string, c *client.Client, log recorder) {
	t.Helper()
	runCases(t, c, log, casesFor(way))
}

// runCases is runTable for the given cases.
func runCases(t *testing.T, c *client.Client, log recorder, cases []adaptertest.Case) {
	t.Helper()
	log.Records(t) // forget what connecting logged
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			before := adaptertest.Calls.Load()
			r := call(t, c, tc.Tool, tc.Args)
			adaptertest.Check(t, tc, r, log.Records(t))
			if tc.Want.HandlerSkipped && adaptertest.Calls.Load() != before {
				t.Errorf("the handler ran for arguments that do not fit the schema")
			}
		})
	}
}

func TestTableInProcess(t *testing.T) { tableOver(t, allWays, inProcess) }

func TestTableStreamableHTTP(t *testing.T) { tableOver(t, allWays, overHTTP) }

// tableOver runs the table for each way of setting up mcperr and each
// protocol, with clients connected by connect.
func tableOver(t *testing.T, ways []string, connect func(testing.TB, *server.MCPServer, string) *client.Client) {
	for _, way := range ways {
		for _, proto := range protocols {
			t.Run(way+"/"+proto, func(t *testing.T) {
				var log adaptertest.Log
				if usesDefault(way) {
					useDefaultLogger(t, log.Logger())
				}
				s, err := tableServer(way, testPipeline(log.Logger()))
				if err != nil {
					t.Fatal(err)
				}
				runTable(t, way, connect(t, s, proto), &log)
			})
		}
	}
}

func TestTableStdio(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, way := range allWays {
		for _, proto := range protocols {
			t.Run(way+"/"+proto, func(t *testing.T) {
				log := &fileLog{path: t.TempDir() + "/server.log"}
				c, err := client.NewStdioMCPClient(exe, []string{stdioWayEnv + "=" + way, stdioLogEnv + "=" + log.path})
				if err != nil {
					t.Fatal(err)
				}
				connect(t, c, proto)
				runTable(t, way, c, log)
				for _, rec := range log.all(t) {
					if rec["session_id"] != "stdio" {
						t.Errorf("record session_id = %v, want the SDK's stdio session id", rec["session_id"])
					}
				}
			})
		}
	}
}

// fileLog reads the JSON records a child process appends to a file.
type fileLog struct {
	path string
	mu   sync.Mutex
	off  int64
	seen []map[string]any
}

// Records returns the records written since the last call.
func (l *fileLog) Records(t testing.TB) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.Open(l.path)
	if err != nil {
		t.Fatalf("open server log: %v", err)
	}
	defer f.Close()
	if _, err := f.Seek(l.off, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l.off += int64(len(sc.Bytes())) + 1
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log record is not JSON: %v: %s", err, sc.Bytes())
		}
		out = append(out, rec)
	}
	l.seen = append(l.seen, out...)
	return out
}

// all returns every record read so far.
func (l *fileLog) all(t testing.TB) []map[string]any {
	l.Records(t)
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seen
}
