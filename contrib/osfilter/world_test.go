package osfilter_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/adapters/mcpgo/mcpgotest"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// canary is in every path and URL the tool uses, and in the text it wraps
// its errors with: it must reach the log, never the client.
const canary = "canary-7f3a-s3cr3t"

// The operations the tool "op" performs, each failing for real.
const (
	opMissing     = "missing"      // read a file that does not exist
	opPermission  = "permission"   // remove a file the kernel does not let anyone remove
	opExists      = "exists"       // create, exclusively, a file that exists
	opNotEmpty    = "not-empty"    // remove a directory that holds a file
	opHTTPTimeout = "http-timeout" // an http.Client with a Timeout, against a server that never answers
	opConnTimeout = "conn-timeout" // a read past the connection's deadline
	opCtxTimeout  = "ctx-timeout"  // an HTTP request under the tool's own context deadline
	opPostTimeout = "post-timeout" // an HTTP POST by an http.Client with a Timeout, against a server that never answers
	opRefused     = "refused"      // connect to a port where nothing listens
	opReset       = "reset"        // read from a connection the peer resets
	opBrokenPipe  = "broken-pipe"  // write to a connection the peer has closed
	opOwnDeadline = "own-deadline" // wait past the tool's own deadline, no connection made
	opNoSocket    = "no-socket"    // connect to a Unix socket whose file does not exist
	opUnrelated   = "unrelated"    // an error that is none of these
)

// world is what the tool works with: files in a directory, and listeners
// on 127.0.0.1.
type world struct {
	dir     string
	silent  string // accepts connections and never answers
	refused string // nothing listens
	reset   string // resets every connection it accepts
	closing string // closes every connection it accepts
}

// newWorld makes the files and starts the listeners, all gone when the
// test ends.
func newWorld(t *testing.T) world {
	t.Helper()
	w := world{dir: t.TempDir()}
	if err := os.WriteFile(filepath.Join(w.dir, "exists-"+canary), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(w.dir, "full-"+canary)
	if err := os.Mkdir(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "order.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}

	w.silent = listen(t, func(c net.Conn) {}) // held open, never read or written
	w.closing = listen(t, func(c net.Conn) { _ = c.Close() })
	w.reset = listen(t, func(c net.Conn) {
		_ = c.(*net.TCPConn).SetLinger(0) // close with a RST
		_ = c.Close()
	})

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w.refused = lis.Addr().String()
	if err := lis.Close(); err != nil {
		t.Fatal(err)
	}
	return w
}

// listen serves a listener on 127.0.0.1 that hands each connection to
// serve, and closes every connection when the test ends.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			serve(c)
		}
	}()
	t.Cleanup(func() {
		_ = lis.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return lis.Addr().String()
}

// do performs op, as a real tool does, and returns its error wrapped with
// %w in a text that holds the canary.
func (w world) do(ctx context.Context, op string) error {
	err := w.fail(ctx, op)
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s (job %s): %w", op, canary, err)
}

func (w world) fail(ctx context.Context, op string) error {
	switch op {
	case opMissing:
		_, err := os.ReadFile(filepath.Join(w.dir, "orders-"+canary+".json"))
		return err
	case opPermission:
		return permissionDenied(w.dir)
	case opExists:
		f, err := os.OpenFile(filepath.Join(w.dir, "exists-"+canary), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
		}
		return err
	case opNotEmpty:
		return os.Remove(filepath.Join(w.dir, "full-"+canary))
	case opHTTPTimeout:
		client := &http.Client{Timeout: 100 * time.Millisecond}
		resp, err := client.Get("http://" + w.silent + "/orders?token=" + canary)
		if err == nil {
			resp.Body.Close()
		}
		return err
	case opPostTimeout:
		client := &http.Client{Timeout: 100 * time.Millisecond}
		resp, err := client.Post("http://"+w.silent+"/orders?token="+canary, "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
		}
		return err
	case opConnTimeout:
		c, err := net.Dial("tcp", w.silent)
		if err != nil {
			return err
		}
		defer c.Close()
		if err := c.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
			return err
		}
		_, err = c.Read(make([]byte, 1))
		return err
	case opCtxTimeout:
		ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond) // the tool's own deadline for its call
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+w.silent+"/orders?token="+canary, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	case opRefused:
		c, err := net.Dial("tcp", w.refused)
		if err == nil {
			c.Close()
		}
		return err
	case opReset:
		// On loopback the peer's reset can beat the end of the connect;
		// dial again until the read is what the peer resets.
		for range 100 {
			c, err := net.Dial("tcp", w.reset)
			if errors.Is(err, syscall.ECONNRESET) {
				continue
			}
			if err != nil {
				return err
			}
			defer c.Close()
			_, err = c.Read(make([]byte, 1))
			return err
		}
		return errors.New("every dial was reset before it connected")
	case opBrokenPipe:
		// Once the peer has closed (the read's EOF), a write draws its
		// reset, and on Linux a write after the reset of a connection the
		// peer closed fails with EPIPE.
		c, err := net.Dial("tcp", w.closing)
		if err != nil {
			return err
		}
		defer c.Close()
		if _, err := c.Read(make([]byte, 1)); err != io.EOF {
			return fmt.Errorf("read before the peer closed: %v", err)
		}
		for range 100 {
			if _, err := c.Write([]byte("charge 10 EUR\n")); err != nil {
				return err
			}
			time.Sleep(10 * time.Millisecond)
		}
		return errors.New("every write succeeded")
	case opOwnDeadline:
		// The tool's own deadline, shorter than the request's, passes
		// while it waits for something of its own, such as a free worker.
		ctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		<-ctx.Done()
		return ctx.Err()
	case opNoSocket:
		c, err := net.Dial("unix", filepath.Join(w.dir, canary+".sock"))
		if err == nil {
			c.Close()
		}
		return err
	case opUnrelated:
		return errors.New("the order total overflowed")
	}
	return fmt.Errorf("no operation %q", op)
}

// permissionDenied returns a real fs.ErrPermission. The tests run as root,
// whom permission bits do not stop, so on Linux it removes a file of
// /proc, which the kernel refuses to everyone (EPERM); elsewhere it reads
// a file whose mode is 000.
func permissionDenied(dir string) error {
	if runtime.GOOS == "linux" {
		return os.Remove("/proc/self/status")
	}
	path := filepath.Join(dir, "locked-"+canary)
	if err := os.WriteFile(path, nil, 0o000); err != nil {
		return err
	}
	_, err := os.ReadFile(path)
	return err
}

// opArgs are the arguments of the tool "op".
type opArgs struct {
	Op string `json:"op"`
}

// sdkClient calls the tool "op" of one SDK's server.
type sdkClient struct {
	name string
	call func(op string) *mcperrtest.Result
	// read calls the tool "read_op", annotated read-only.
	read func(op string) *mcperrtest.Result
}

// connect returns a client of a go-sdk server and one of an mcp-go server,
// each with the tool "op", not annotated, and "read_op", the same annotated
// read-only, and mcperr installed with a pipeline that logs to log and has
// global and opts, and the tools given tool as their filters.
func connect(t *testing.T, log *mcperrtest.Log, w world, global, tool []filter.Filter, opts ...filter.Option) []sdkClient {
	t.Helper()
	pipeline := func() *filter.Pipeline {
		p, err := filter.New(append([]filter.Option{filter.WithLogger(log.Logger()), filter.WithFilters(global...)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	gs := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	if err := gosdk.Install(gs, pipeline()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"op", "read_op"} {
		err := gosdk.AddTool(gs, &mcp.Tool{Name: name, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: name == "read_op"}}, func(ctx context.Context, _ *mcp.CallToolRequest, in opArgs) (*mcp.CallToolResult, any, error) {
			if err := w.do(ctx, in.Op); err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		}, filter.WithFilters(tool...))
		if err != nil {
			t.Fatal(err)
		}
	}
	gc := gosdktest.Connect(t, gs)

	ms := server.NewMCPServer("files", "1.0.0")
	if err := mcpgo.Install(ms, pipeline()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"op", "read_op"} {
		err := mcpgo.AddTool(ms, mcpgomcp.NewTool(name, mcpgomcp.WithString("op", mcpgomcp.Required()), mcpgomcp.WithReadOnlyHintAnnotation(name == "read_op")),
			func(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
				if err := w.do(ctx, req.GetString("op", "")); err != nil {
					return nil, err
				}
				return mcpgomcp.NewToolResultText("done"), nil
			}, filter.WithFilters(tool...))
		if err != nil {
			t.Fatal(err)
		}
	}
	mc := mcpgotest.Connect(t, ms)

	return []sdkClient{
		{"go-sdk", func(op string) *mcperrtest.Result { return gc.Call("op", opArgs{Op: op}) },
			func(op string) *mcperrtest.Result { return gc.Call("read_op", opArgs{Op: op}) }},
		{"mcp-go", func(op string) *mcperrtest.Result { return mc.Call("op", opArgs{Op: op}) },
			func(op string) *mcperrtest.Result { return mc.Call("read_op", opArgs{Op: op}) }},
	}
}
