package gosdk_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// serveEnv, when set to the name of a style, makes the test binary serve
// the table over stdio in that style instead of running the tests.
const serveEnv = "MCPERR_GOSDK_SERVE_STDIO"

func TestMain(m *testing.M) {
	if name := os.Getenv(serveEnv); name != "" {
		os.Exit(serveStdio(name))
	}
	os.Exit(m.Run())
}

// serveStdio serves the table over stdin and stdout, in the style named
// name, writing its log records as JSON lines to stderr.
func serveStdio(name string) int {
	st, ok := styleNamed(name)
	if !ok {
		fmt.Fprintf(os.Stderr, "no style named %q\n", name)
		return 2
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := filter.New(filter.WithLogger(logger), filter.WithRegistry(adaptertest.Registry()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := newServer(st, p).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// fileLog reads the log records a child process writes to a file.
type fileLog struct {
	f   *os.File
	off int64
	log adaptertest.Log
}

// Records returns the records written to the file since the last call. The
// child writes each record straight to the file before it answers the call,
// so a record is there by the time its call has returned.
func (l *fileLog) Records(t testing.TB) []map[string]any {
	t.Helper()
	n, err := io.Copy(&l.log, io.NewSectionReader(l.f, l.off, 1<<40))
	if err != nil {
		t.Fatal(err)
	}
	l.off += n
	return l.log.Records(t)
}

// TestStdio runs the table against a server in a child process, over stdio,
// as a host runs a local MCP server: a panic must leave the process serving.
func TestStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for _, name := range []string{"Install/typed", "Install+Wrap/typed", "Install+AddRawTool/raw"} {
		st, _ := styleNamed(name)
		for _, proto := range protocols {
			t.Run(name+"/"+proto.name, func(t *testing.T) {
				stderr, err := os.CreateTemp(t.TempDir(), "stderr")
				must(t, err)
				defer stderr.Close()
				cmd := exec.Command(os.Args[0])
				cmd.Env = append(os.Environ(), serveEnv+"="+name)
				cmd.Stderr = stderr
				c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil)
				cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, sessionOptions(t, proto.version))
				must(t, err)
				listTools(t, cs)
				runTable(t, st, cs, &fileLog{f: stderr}, nil)
				if err := cs.Close(); err != nil {
					t.Errorf("the server process ended with %v", err)
				}
			})
		}
	}
}

// TestStreamableHTTP runs the table over streamable HTTP, where sessions
// have ids, and checks that a logged error names its session.
func TestStreamableHTTP(t *testing.T) {
	st, _ := styleNamed("Install+AddTool/typed")
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			var log adaptertest.Log
			s := newServer(st, newPipeline(t, &log))
			srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
			defer srv.Close()
			c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, sessionOptions(t, proto.version))
			must(t, err)
			listTools(t, cs)
			defer cs.Close()
			runTable(t, st, cs, &log, adaptertest.Calls.Load)

			log.Records(t)
			call(context.Background(), cs, adaptertest.Case{Tool: "internal"})
			recs := log.Records(t)
			if len(recs) != 1 {
				t.Fatalf("%d log records, want 1", len(recs))
			}
			id, _ := recs[0]["session_id"].(string)
			if id == "" || id != cs.ID() {
				t.Errorf("log record session_id %q, want the session's id %q", id, cs.ID())
			}
		})
	}
}
