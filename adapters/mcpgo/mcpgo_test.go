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
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/adaptertest"
)

// The ways a table server puts mcperr in place.
const (
	viaMiddleware = "middleware"
	viaWrap       = "wrap"
	viaTools      = "tools"
	viaBothWrap   = "middleware+wrap"
	viaBothTools  = "middleware+tools"
)

var allWays = []string{viaMiddleware, viaWrap, viaTools, viaBothWrap, viaBothTools}

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

// testPipeline returns a pipeline that logs to logger.
func testPipeline(logger *slog.Logger) *filter.Pipeline {
	p, err := filter.New(filter.WithLogger(logger))
	if err != nil {
		panic(err)
	}
	return p
}

// tableServer returns a server with the tools of the table and mcperr put in
// place the way way says.
func tableServer(way string, p *filter.Pipeline) (*server.MCPServer, error) {
	return tableServerAround(way, p, nil, nil)
}

// tableServerAround is tableServer with the server options before applied
// before mcperr's middleware and those of after after it.
func tableServerAround(way string, p *filter.Pipeline, before, after []server.ServerOption) (*server.MCPServer, error) {
	opts := before
	if way == viaMiddleware || way == viaBothWrap || way == viaBothTools {
		opts = append(opts, server.WithToolHandlerMiddleware(mcpgo.Middleware(mcpgo.WithPipeline(p))))
	}
	s := server.NewMCPServer("table", "1.0.0", append(opts, after...)...)
	var tools *mcpgo.Tools
	if way == viaTools || way == viaBothTools {
		var err error
		if tools, err = mcpgo.NewTools(s, mcpgo.WithPipeline(p)); err != nil {
			return nil, err
		}
	}
	for _, tool := range adaptertest.Tools() {
		def, h := toolDefinition(tool), tableHandler(tool)
		switch way {
		case viaWrap, viaBothWrap:
			s.AddTool(def, mcpgo.Wrap(h, mcpgo.WithPipeline(p)))
		case viaTools, viaBothTools:
			if err := tools.AddTool(def, h); err != nil {
				return nil, err
			}
		default:
			s.AddTool(def, h)
		}
	}
	return s, nil
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
	return r
}

// recorder is where a test reads the records a server logged.
type recorder interface {
	Records(t testing.TB) []map[string]any
}

// runTable runs every case of the table through c and checks what the client
// received and what the server logged.
func runTable(t *testing.T, c *client.Client, log recorder) {
	t.Helper()
	runCases(t, c, log, adaptertest.Cases())
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

func TestTableStreamableHTTP(t *testing.T) {
	tableOver(t, []string{viaMiddleware, viaWrap, viaTools}, overHTTP)
}

// tableOver runs the table for each way of setting up mcperr and each
// protocol, with clients connected by connect.
func tableOver(t *testing.T, ways []string, connect func(testing.TB, *server.MCPServer, string) *client.Client) {
	for _, way := range ways {
		for _, proto := range protocols {
			t.Run(way+"/"+proto, func(t *testing.T) {
				var log adaptertest.Log
				s, err := tableServer(way, testPipeline(log.Logger()))
				if err != nil {
					t.Fatal(err)
				}
				runTable(t, connect(t, s, proto), &log)
			})
		}
	}
}

func TestTableStdio(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, way := range []string{viaMiddleware, viaWrap, viaBothTools} {
		for _, proto := range protocols {
			t.Run(way+"/"+proto, func(t *testing.T) {
				log := &fileLog{path: t.TempDir() + "/server.log"}
				c, err := client.NewStdioMCPClient(exe, []string{stdioWayEnv + "=" + way, stdioLogEnv + "=" + log.path})
				if err != nil {
					t.Fatal(err)
				}
				connect(t, c, proto)
				runTable(t, c, log)
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
