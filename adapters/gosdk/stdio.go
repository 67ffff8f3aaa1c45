package gosdk

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLineBytes is the longest incoming line a StdioTransport accepts
// when its MaxLineBytes is 0: 4 MiB, not counting the line's end ("\n" or
// "\r\n"). (mcp.StdioTransport buffers up to 16 MiB of a message, and
// ends the session on a longer one.)
const DefaultMaxLineBytes = 4 << 20

// StdioTransport is a go-sdk mcp.Transport over standard input and output,
// newline-delimited JSON-RPC messages as mcp.StdioTransport, that survives
// malformed input: it answers a line it cannot use with a JSON-RPC error
// and goes on reading, where mcp.StdioTransport ends the session, and with
// it the server, on the first such line.
//
// Use it in place of &mcp.StdioTransport{}:
//
//	s.Run(ctx, &gosdk.StdioTransport{})
//
// Each incoming line is one message; blank lines are skipped. What a bad
// line gets, always with "id": null unless said otherwise:
//
//   - a line longer than MaxLineBytes: -32700 "Parse error", data "message
//     too large: ...". The line is read up to its newline and dropped as it
//     comes, never held whole;
//   - a line that is not JSON ({not json, a JSON value followed by more
//     bytes on the line): -32700 "Parse error";
//   - JSON that is not a message object: -32600 "Invalid Request", for null,
//     a number, a string, a boolean and an array (a batch: MCP has none since
//     2025-06-18);
//   - an object that is not a valid JSON-RPC 2.0 message: -32600 "Invalid
//     Request", for a missing or wrong "jsonrpc", a method that is not a
//     string, an id that is not a string or an integer of at most 2^53 in
//     magnitude (the SDK would alter it), a response without an id, and an
//     object with neither a method nor a result or an error. When the object has a
//     method key and a valid id, the answer carries that id, so that the
//     client's call fails instead of waiting; an object without a method
//     would be a response, whose id belongs to the server's calls, so its
//     answer keeps id null.
//
// The error's data is a short fixed explanation; an answer repeats nothing
// of the line it answers but an echoed id. A response from the client to an
// id the server does not know is passed on, and the SDK ignores it, as it
// does with mcp.StdioTransport. A message must fit on one line, as the MCP
// specification requires of stdio: unlike mcp.StdioTransport, which decodes
// a stream of JSON values, this transport does not join a value spread over
// several lines.
//
// Writes are serialized: each outgoing message is one write of its encoding
// and a newline. The end of the input ends the session cleanly. Close
// closes standard input, as mcp.StdioTransport does, but not standard
// output; a Reader or Writer set by the caller is closed if it is an
// io.Closer, as mcp.IOTransport does.
type StdioTransport struct {
	// Reader and Writer default to os.Stdin and os.Stdout when nil.
	Reader io.Reader
	Writer io.Writer
	// MaxLineBytes bounds one incoming line, not counting its end; 0 means
	// DefaultMaxLineBytes.
	MaxLineBytes int
}

// Connect implements mcp.Transport. It starts reading at once, in a
// goroutine of its own that ends when the input does.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxLineBytes
	if limit < 0 {
		return nil, fmt.Errorf("gosdk: StdioTransport.MaxLineBytes is %d, want 0 or more", limit)
	}
	if limit == 0 {
		limit = DefaultMaxLineBytes
	}
	limit = min(limit, math.MaxInt-2) // room for "\r\n"
	c := &stdioConn{
		w:        t.Writer,
		incoming: make(chan stdioLine),
		closed:   make(chan struct{}),
		max:      limit,
	}
	r := t.Reader
	if r == nil {
		r = os.Stdin
		c.closers = append(c.closers, os.Stdin)
	} else if rc, ok := r.(io.Closer); ok {
		c.closers = append(c.closers, rc)
	}
	if c.w == nil {
		c.w = os.Stdout // not closed, as with mcp.StdioTransport
	} else if wc, ok := c.w.(io.Closer); ok {
		c.closers = append(c.closers, wc)
	}
	go c.readLines(bufio.NewReaderSize(r, min(limit+2, 64<<10)))
	return c, nil
}

// stdioLine is what the reading goroutine found: a line, a line too long to
// keep, or the error that ended the input.
type stdioLine struct {
	line    []byte
	tooLong bool
	err     error
}

// stdioConn is the mcp.Connection of a StdioTransport.
type stdioConn struct {
	writeMu sync.Mutex
	w       io.Writer

	// incoming is fed by readLines; reading in a goroutine of its own lets
	// Close unblock a Read waiting for input, as mcp.Connection asks.
	incoming chan stdioLine
	max      int

	closeOnce sync.Once
	closed    chan struct{}
	closers   []io.Closer
	closeErr  error
}

var errStdioClosed = errors.New("gosdk: stdio connection closed")

// readLines reads the input line by line into c.incoming until it fails or
// the connection is closed.
func (c *stdioConn) readLines(br *bufio.Reader) {
	for {
		l := c.nextLine(br)
		if l.err == nil && !l.tooLong && len(bytes.TrimSpace(l.line)) == 0 {
			continue // a blank line
		}
		select {
		case c.incoming <- l:
		case <-c.closed:
			return
		}
		if l.err != nil {
			return
		}
	}
}

// nextLine reads one line, without its end. A line longer than c.max is
// read to its end in pieces of the reader's buffer and reported as too
// long, holding at most c.max+2 of its bytes at any time.
func (c *stdioConn) nextLine(br *bufio.Reader) stdioLine {
	var buf []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > c.max+2 { // room for "\r\n"
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == nil, err == io.EOF && (tooLong || len(buf) > 0):
			// A whole line, or the last one, unterminated: the next call
			// reports the end of the input.
			if tooLong {
				return stdioLine{tooLong: true}
			}
			line := bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))
			if len(line) > c.max {
				return stdioLine{tooLong: true}
			}
			return stdioLine{line: line}
		default:
			return stdioLine{err: err}
		}
	}
}

// Read implements mcp.Connection: it returns the next valid message,
// answering every bad line before it.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		default:
		}
		var l stdioLine
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.incoming:
		}
		if l.err != nil {
			return nil, l.err // io.EOF at the end of the input
		}
		msg, answer := c.decode(l)
		if answer == nil {
			return msg, nil
		}
		if err := c.writeLine(answer); err != nil {
			return nil, err
		}
	}
}

// JSON-RPC 2.0 error messages of the codes this transport answers.
const (
	msgParseError     = "Parse error"
	msgInvalidRequest = "Invalid Request"
)

// decode returns the message of a line, or the answer to write if the line
// is not a message the SDK can take.
func (c *stdioConn) decode(l stdioLine) (jsonrpc.Message, []byte) {
	if l.tooLong {
		return nil, errorAnswer(nil, jsonrpc.CodeParseError, msgParseError,
			"message too large: a line may hold at most "+strconv.Itoa(c.max)+" bytes")
	}
	line := bytes.TrimSpace(l.line)
	// json.Valid, not the SDK's decoder, which takes the first value of
	// the line and ignores what follows it.
	if !json.Valid(line) {
		return nil, errorAnswer(nil, jsonrpc.CodeParseError, msgParseError, "not valid JSON")
	}
	switch line[0] {
	case '{':
	case '[':
		return nil, errorAnswer(nil, jsonrpc.CodeInvalidRequest, msgInvalidRequest, "batches are not supported")
	default:
		return nil, errorAnswer(nil, jsonrpc.CodeInvalidRequest, msgInvalidRequest, "a message must be a JSON object")
	}
	// Keys are matched exactly, as the SDK does, not as encoding/json
	// matches struct fields.
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return nil, errorAnswer(nil, jsonrpc.CodeInvalidRequest, msgInvalidRequest, "a message must be a JSON object")
	}
	rawMethod, hasMethod := obj["method"]
	rawID, hasID := obj["id"]
	var id *jsonrpc.ID // the id to answer with; nil for null
	idOK := true
	if hasID {
		v, ok := parseID(rawID)
		idOK = ok
		if ok && hasMethod && v.IsValid() {
			id = &v
		}
	}
	invalid := func(data string) []byte {
		return errorAnswer(id, jsonrpc.CodeInvalidRequest, msgInvalidRequest, data)
	}
	if version, ok := obj["jsonrpc"]; !ok || !isString(version, "2.0") {
		return nil, invalid(`"jsonrpc" must be "2.0"`)
	}
	if !idOK {
		return nil, invalid("id must be a string or an integer of magnitude at most 2^53")
	}
	if hasMethod {
		var method string
		if err := json.Unmarshal(rawMethod, &method); err != nil || isNull(rawMethod) {
			return nil, invalid("method must be a string")
		}
	} else {
		_, hasResult := obj["result"]
		_, hasError := obj["error"]
		if !hasResult && !hasError {
			return nil, invalid("a message needs a method, or a result or an error")
		}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, invalid("not a valid JSON-RPC message")
	}
	return msg, nil
}

// parseID reports whether raw is an id the SDK keeps as it is: null, a
// string, or an integer it can hold exactly (the SDK decodes a numeric id as
// a float64 and truncates it to an int64).
func parseID(raw json.RawMessage) (jsonrpc.ID, bool) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return jsonrpc.ID{}, false
	}
	if f, ok := v.(float64); ok && (f != math.Trunc(f) || math.Abs(f) > 1<<53) {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(v)
	return id, err == nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// isString reports whether raw is the JSON string want.
func isString(raw json.RawMessage, want string) bool {
	var s string
	return !isNull(raw) && json.Unmarshal(raw, &s) == nil && s == want
}

// errorAnswer returns the line of an error response, with id, or with id
// null when id is nil.
func errorAnswer(id *jsonrpc.ID, code int64, message, data string) []byte {
	wireErr := &jsonrpc.Error{Code: code, Message: message}
	if data != "" {
		wireErr.Data, _ = json.Marshal(data)
	}
	if id != nil {
		if b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: *id, Error: wireErr}); err == nil {
			return b
		}
	}
	// jsonrpc.EncodeMessage leaves out an invalid (null) id, but JSON-RPC
	// requires the member, with the value null.
	b, err := json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      *struct{}      `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", nil, wireErr})
	if err != nil { // not reached: every field marshals
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}`)
	}
	return b
}

// Write implements mcp.Connection.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("gosdk: encoding a message: %w", err)
	}
	return c.writeLine(b)
}

// writeLine writes b and a newline in one write, one line at a time.
func (c *stdioConn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return errStdioClosed
	default:
	}
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// Close implements mcp.Connection. It may be called more than once, and at
// the same time as Read and Write.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		var errs []error
		for _, cl := range c.closers {
			errs = append(errs, cl.Close())
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}

// SessionID implements mcp.Connection: a stdio connection has no session id.
func (c *stdioConn) SessionID() string { return "" }
