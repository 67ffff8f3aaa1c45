package gosdk_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
)

// Frames of a session, as a client writes them.
const (
	initializeLine  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1.0.0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	pingLine        = `{"jsonrpc":"2.0","id":"ping-1","method":"ping"}`
	callLine        = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`
)

// stdioWait bounds every wait on a server in these tests.
const stdioWait = 10 * time.Second

// stdioAnswer is one line the server wrote.
type stdioAnswer struct {
	raw    string
	fields map[string]json.RawMessage
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
}

// id returns the answer's id as it is on the wire, "" if it has none.
func (a stdioAnswer) id() string { return string(a.fields["id"]) }

// stdioPeer is a client of a server on the far side of two pipes, speaking
// raw lines.
type stdioPeer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error // the result of the server's Run
}

// greetServer returns a server with one tool, greet.
func greetServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	type args struct {
		Name string `json:"name"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greets someone."},
		func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
		})
	return s
}

// startStdio runs greetServer on the transport that newTransport returns
// for the given pipe ends.
func startStdio(t *testing.T, newTransport func(r *io.PipeReader, w *io.PipeWriter) mcp.Transport) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()   // client → server
	outR, outW := io.Pipe() // server → client
	p := &stdioPeer{t: t, in: inW, lines: make(chan string, 16), done: make(chan error, 1)}
	go func() {
		p.done <- greetServer().Run(context.Background(), newTransport(inR, outW))
	}()
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-p.done:
		case <-time.After(stdioWait):
			t.Error("the server did not stop at the end of its input")
		}
		outR.Close()
	})
	return p
}

// startGoSDK runs greetServer on a gosdk.StdioTransport.
func startGoSDK(t *testing.T, maxLineBytes int) *stdioPeer {
	return startStdio(t, func(r *io.PipeReader, w *io.PipeWriter) mcp.Transport {
		return &gosdk.StdioTransport{Reader: r, Writer: w, MaxLineBytes: maxLineBytes}
	})
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, err := io.WriteString(p.in, line+"\n")
		errc <- err
	}()
	select {
	case err := <-errc:
		if err != nil {
			p.t.Fatalf("writing to the server: %v", err)
		}
	case <-time.After(stdioWait):
		p.t.Fatal("the server does not read")
	}
}

// recv returns the next line the server wrote; ok is false if the server
// closed its output.
func (p *stdioPeer) recv() (a stdioAnswer, ok bool) {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			return a, false
		}
		a.raw = line
		if err := json.Unmarshal([]byte(line), &a.fields); err != nil {
			p.t.Fatalf("the server wrote a line that is not a JSON object: %q", line)
		}
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			p.t.Fatalf("the server wrote %q: %v", line, err)
		}
		return a, true
	case <-time.After(stdioWait):
		p.t.Fatal("no answer from the server")
	}
	return a, false
}

// mustRecv is recv, failing the test if the output ended.
func (p *stdioPeer) mustRecv() stdioAnswer {
	p.t.Helper()
	a, ok := p.recv()
	if !ok {
		p.t.Fatal("the server closed its output")
	}
	return a
}

// initialize opens the MCP session.
func (p *stdioPeer) initialize() {
	p.t.Helper()
	p.send(initializeLine)
	if a := p.mustRecv(); a.id() != "1" || a.Error != nil {
		p.t.Fatalf("initialize: %s", a.raw)
	}
	p.send(initializedLine)
}

// ping checks that the server still answers a call.
func (p *stdioPeer) ping() {
	p.t.Helper()
	p.send(pingLine)
	if a := p.mustRecv(); a.id() != `"ping-1"` || a.Error != nil || a.fields["result"] == nil {
		p.t.Fatalf("ping: %s", a.raw)
	}
}

func TestStdioTransportBadLines(t *testing.T) {
	const limit = 256
	tests := []struct {
		name, line string
		code       int64
		id         string // as on the wire
	}{
		{"not JSON", `{not json`, jsonrpc.CodeParseError, "null"},
		{"trailing bytes", `{"jsonrpc":"2.0","id":9,"method":"ping"} x`, jsonrpc.CodeParseError, "null"},
		{"null", `null`, jsonrpc.CodeInvalidRequest, "null"},
		{"number", `42`, jsonrpc.CodeInvalidRequest, "null"},
		{"string", `"x"`, jsonrpc.CodeInvalidRequest, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, "null"},
		{"empty batch", `[]`, jsonrpc.CodeInvalidRequest, "null"},
		{"no jsonrpc, no method", `{"id":1}`, jsonrpc.CodeInvalidRequest, "null"},
		{"no jsonrpc", `{"id":7,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "7"},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":"a","method":"ping"}`, jsonrpc.CodeInvalidRequest, `"a"`},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":5}`, jsonrpc.CodeInvalidRequest, "1"},
		{"method null", `{"jsonrpc":"2.0","id":1,"method":null}`, jsonrpc.CodeInvalidRequest, "1"},
		{"id an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"id a fraction", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"neither method nor result", `{"jsonrpc":"2.0","id":1}`, jsonrpc.CodeInvalidRequest, "null"},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, jsonrpc.CodeInvalidRequest, "null"},
		{"too long", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", limit) + `"}}`, jsonrpc.CodeParseError, "null"},
		{"too long by one", strings.Repeat(" ", limit-len(pingLine)+1) + pingLine, jsonrpc.CodeParseError, "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startGoSDK(t, limit)
			p.initialize()
			p.send(tt.line)
			a := p.mustRecv()
			if a.Error == nil || a.Error.Code != tt.code || a.id() != tt.id {
				t.Fatalf("answer to %.40q = %s, want code %d and id %s", tt.line, a.raw, tt.code, tt.id)
			}
			if want := map[int64]string{-32700: "Parse error", -32600: "Invalid Request"}[tt.code]; a.Error.Message != want {
				t.Errorf("message %q, want %q", a.Error.Message, want)
			}
			if string(a.fields["jsonrpc"]) != `"2.0"` || a.fields["result"] != nil {
				t.Errorf("answer %s is not a JSON-RPC 2.0 error response", a.raw)
			}
			if strings.Contains(tt.name, "too long") && !strings.Contains(string(a.Error.Data), "message too large") {
				t.Errorf("data %s, want it to say the message is too large", a.Error.Data)
			}
			for _, part := range []string{"not json", "xxxx", `"x"`, "1.0", "ping"} {
				if strings.Contains(tt.line, part) && strings.Contains(a.raw, part) {
					t.Errorf("answer %s repeats %q of the line", a.raw, part)
				}
			}
			p.ping()
		})
	}
}

// TestStdioTransportBadLineFirst sends a bad line before initialize: the
// session still opens.
func TestStdioTransportBadLineFirst(t *testing.T) {
	p := startGoSDK(t, 0)
	p.send(`{not json`)
	if a := p.mustRecv(); a.Error == nil || a.Error.Code != jsonrpc.CodeParseError || a.id() != "null" {
		t.Fatalf("answer to {not json = %s", a.raw)
	}
	p.initialize()
	p.send(callLine)
	if a := p.mustRecv(); a.id() != "3" || !strings.Contains(a.raw, "Hello, Ada!") {
		t.Fatalf("tools/call = %s", a.raw)
	}
}

// TestStdioTransportPassesOn checks the lines that are no error: blank
// lines, CRLF line ends, a line of exactly MaxLineBytes, and a response to
// a call the server never made, which the SDK ignores.
func TestStdioTransportPassesOn(t *testing.T) {
	const limit = 256
	p := startGoSDK(t, limit)
	p.send("")
	p.send("   \t")
	p.send(initializeLine[:len(initializeLine)-1] + "}\r")
	if a := p.mustRecv(); a.id() != "1" || a.Error != nil {
		t.Fatalf("initialize with CRLF: %s", a.raw)
	}
	p.send(initializedLine)
	p.send(`{"jsonrpc":"2.0","id":77,"result":{}}`)
	p.send(strings.Repeat(" ", limit-len(pingLine)) + pingLine + "\r")
	if a := p.mustRecv(); a.id() != `"ping-1"` || a.Error != nil {
		t.Fatalf("a ping of exactly MaxLineBytes: %s", a.raw)
	}
}

// TestStdioTransportLongLineNotKept sends a line far longer than the limit
// and the reader's buffer, in pieces, and then the end of the input in the
// middle of another long line.
func TestStdioTransportLongLineNotKept(t *testing.T) {
	var out bytes.Buffer
	in := strings.NewReader(strings.Repeat("y", 1<<20) + "\n" + pingLine + "\n" + strings.Repeat("z", 1<<20))
	conn, err := (&gosdk.StdioTransport{Reader: in, Writer: &out, MaxLineBytes: 100}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	msg, err := conn.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); err != nil || !ok || req.Method != "ping" {
		t.Fatalf("Read = %v, %v; want the ping", msg, err)
	}
	if _, err := conn.Read(ctx); err != io.EOF {
		t.Fatalf("Read at the end = %v, want io.EOF", err)
	}
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":"message too large: a line may hold at most 100 bytes"}}` + "\n"
	if out.String() != want+want {
		t.Errorf("wrote\n%s\nwant twice\n%s", out.String(), want)
	}
}

// TestStdioTransportEOF checks that the end of the input ends the session
// cleanly and closes the output.
func TestStdioTransportEOF(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- greetServer().Run(context.Background(), &gosdk.StdioTransport{Reader: inR, Writer: outW})
	}()
	outLines := bufio.NewReader(outR)
	if _, err := io.WriteString(inW, initializeLine+"\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := outLines.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run at the end of the input = %v, want nil", err)
		}
	case <-time.After(stdioWait):
		t.Fatal("Run did not return at the end of the input")
	}
	if rest, err := io.ReadAll(outLines); err != nil || len(rest) != 0 {
		t.Errorf("output after the end: %q, %v; want it closed", rest, err)
	}
}

// TestStdioTransportCloseUnblocksRead checks that Close ends a Read waiting
// for input.
func TestStdioTransportCloseUnblocksRead(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	conn, err := (&gosdk.StdioTransport{Reader: inR, Writer: io.Discard}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Read(context.Background())
		errc <- err
	}()
	time.Sleep(10 * time.Millisecond)
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("Read after Close returned no error")
		}
	case <-time.After(stdioWait):
		t.Fatal("Close did not unblock Read")
	}
	if err := conn.Write(context.Background(), &jsonrpc.Request{Method: "ping"}); err == nil {
		t.Error("Write after Close returned no error")
	}
	if conn.SessionID() != "" {
		t.Errorf("SessionID = %q, want empty", conn.SessionID())
	}
}

// lineWriter fails the test if two writes overlap or a write is not one
// whole JSON line.
type lineWriter struct {
	t       *testing.T
	busy    atomic.Bool
	mu      sync.Mutex
	lines   []string
	overlap atomic.Bool
}

func (w *lineWriter) Write(p []byte) (int, error) {
	if !w.busy.CompareAndSwap(false, true) {
		w.overlap.Store(true)
	}
	defer w.busy.Store(false)
	time.Sleep(50 * time.Microsecond) // widen the window for an overlap
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, string(p))
	return len(p), nil
}

// TestStdioTransportConcurrentWrites writes from many goroutines while Read
// answers bad lines: every write is one whole line, never two at once.
func TestStdioTransportConcurrentWrites(t *testing.T) {
	const writers, each, bad = 8, 25, 50
	w := &lineWriter{t: t}
	in := strings.NewReader(strings.Repeat("{not json\n", bad) + pingLine + "\n")
	conn, err := (&gosdk.StdioTransport{Reader: in, Writer: w}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				n := &jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(fmt.Sprintf(`{"g":%d,"i":%d}`, g, i))}
				if err := conn.Write(ctx, n); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	if msg, err := conn.Read(ctx); err != nil || msg.(*jsonrpc.Request).Method != "ping" {
		t.Errorf("Read = %v, %v; want the ping", msg, err)
	}
	wg.Wait()
	if w.overlap.Load() {
		t.Error("two writes overlapped")
	}
	if len(w.lines) != writers*each+bad {
		t.Errorf("%d writes, want %d", len(w.lines), writers*each+bad)
	}
	for _, l := range w.lines {
		if !strings.HasSuffix(l, "\n") || strings.Count(l, "\n") != 1 || !json.Valid([]byte(l)) {
			t.Fatalf("write %q is not one JSON line", l)
		}
	}
}

// TestStdioTransportConnectNegativeLimit checks that a negative
// MaxLineBytes is refused.
func TestStdioTransportConnectNegativeLimit(t *testing.T) {
	if _, err := (&gosdk.StdioTransport{Reader: strings.NewReader(""), Writer: io.Discard, MaxLineBytes: -1}).Connect(context.Background()); err == nil {
		t.Error("Connect with MaxLineBytes -1 returned no error")
	}
}

// TestStdioTransportSDKControl shows what gosdk.StdioTransport is for: on
// the SDK's own newline-delimited transport, mcp.IOTransport (what
// mcp.StdioTransport is over os.Stdin and os.Stdout), one {not json ends
// the session, unanswered.
func TestStdioTransportSDKControl(t *testing.T) {
	p := startStdio(t, func(r *io.PipeReader, w *io.PipeWriter) mcp.Transport {
		return &mcp.IOTransport{Reader: r, Writer: w}
	})
	p.initialize()
	p.ping()
	p.send(`{not json`)
	if a, ok := p.recv(); ok {
		t.Fatalf("the SDK's transport answered {not json with %s; the session was expected to end", a.raw)
	}
	select {
	case err := <-p.done:
		if err == nil {
			t.Error("Run ended without an error")
		}
		p.done <- err // for the cleanup
	case <-time.After(stdioWait):
		t.Fatal("the session did not end")
	}
}

// ExampleStdioTransport serves a tool over a gosdk.StdioTransport whose
// input is a pipe, and sends it a line that is not JSON before a session:
// the server answers it with a parse error and goes on serving.
func ExampleStdioTransport() {
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	type args struct {
		Name string `json:"name"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greets someone."},
		func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil, nil
		})

	clientOut, serverIn := io.Pipe()
	serverOut, clientIn := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.Run(context.Background(), &gosdk.StdioTransport{Reader: clientOut, Writer: clientIn})
	}()

	answers := bufio.NewReader(serverOut)
	send := func(line string) { io.WriteString(serverIn, line+"\n") }
	recv := func() string { line, _ := answers.ReadString('\n'); return strings.TrimSpace(line) }

	send(`{not json`)
	fmt.Println(recv())
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"example","version":"1.0.0"}}}`)
	var init struct {
		Result struct {
			ServerInfo mcp.Implementation `json:"serverInfo"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(recv()), &init)
	fmt.Println("initialized:", init.Result.ServerInfo.Name)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`)
	fmt.Println(recv())

	serverIn.Close() // the end of the input ends the session
	fmt.Println("Run:", <-done)
	// Output:
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":"not valid JSON"}}
	// initialized: greeter
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Hello, Ada!"}]}}
	// Run: <nil>
}
