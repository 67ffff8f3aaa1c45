package mcperrtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcperr/mcperr/filter"
)

// Result is what a client received for one tools/call request, in a form
// that is the same for every SDK.
//
// A Result is either a tool result (ProtocolError is nil) or a JSON-RPC
// error (ProtocolError is set, and the other fields are zero but Tool and
// Raw).
type Result struct {
	// Method is the request's method: "tools/call", "resources/read" or
	// "prompts/get"; "" when unknown, which is taken as a tool call.
	Method string
	// Tool is the name of the tool that was called, or, for the other
	// methods, the URI of the resource read or the name of the prompt;
	// "" when unknown.
	Tool string
	// ProtocolError is the JSON-RPC error the server answered with, or nil
	// for a tool result.
	ProtocolError *ProtocolError
	// IsError is the result's isError.
	IsError bool
	// Content holds the result's content blocks, in order. The first is
	// the message of an error result.
	Content []Content
	// Meta holds the result's _meta, each value as it was sent.
	Meta map[string]json.RawMessage
	// Envelope is the mcperr envelope in Meta under filter.MetaKey, decoded;
	// nil when there is none.
	Envelope *filter.Envelope
	// StructuredContent is the result's structuredContent as it was sent;
	// nil when there is none.
	StructuredContent json.RawMessage
	// Raw is the whole JSON-RPC response, as the client received it. Every
	// byte of it reached the client.
	Raw []byte
	// Received are the other messages the client received while the call
	// was in flight, in order, each as it was sent: notifications (progress,
	// log messages) and the server's own requests. The SDK kits fill it.
	Received []json.RawMessage
}

// Content is one content block of a tool result.
type Content struct {
	// Type is the block's type, such as "text" or "image".
	Type string
	// Text is the text of a "text" block; "" for others.
	Text string
	// Raw is the whole block as it was sent.
	Raw json.RawMessage
}

// ProtocolError is a JSON-RPC error a server answered a request with.
type ProtocolError struct {
	Code    int64
	Message string
	Data    json.RawMessage
}

// Error returns the error's code and message.
func (e *ProtocolError) Error() string {
	return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message)
}

// Text returns the text of the result's first content block: the message
// of an error result. It returns "" when the first block is not text, or
// there is none.
func (r *Result) Text() string {
	if r == nil || len(r.Content) == 0 || r.Content[0].Type != "text" {
		return ""
	}
	return r.Content[0].Text
}

// Texts returns the texts of the result's text blocks, in order.
func (r *Result) Texts() []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, c := range r.Content {
		if c.Type == "text" {
			out = append(out, c.Text)
		}
	}
	return out
}

// String shows what the client received: a line that says what it was,
// then the whole JSON-RPC response, indented. Every assertion's failure
// message ends with it.
func (r *Result) String() string {
	if r == nil {
		return "the client received nothing (nil Result)"
	}
	var b strings.Builder
	method := r.Method
	if method == "" {
		method = "tools/call"
	}
	b.WriteString("the client received, for " + method + " ")
	b.WriteString(strconv.Quote(r.Tool))
	switch {
	case r.ProtocolError != nil:
		fmt.Fprintf(&b, ", a JSON-RPC error (code %d):\n", r.ProtocolError.Code)
	case method != "tools/call":
		b.WriteString(", a result:\n")
	default:
		fmt.Fprintf(&b, ", a tool result (isError: %t):\n", r.IsError)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, r.Raw, "\t", "  "); err != nil {
		b.WriteString("\t")
		b.WriteString(strconv.Quote(string(r.Raw)))
	} else {
		b.WriteString("\t")
		b.Write(out.Bytes())
	}
	return b.String()
}

// ParseResponse returns the Result of the JSON-RPC response to a call of
// tool, as a client received it. The SDK packages of mcperr's test kit
// build their Results with it; a test that talks to a server another way
// (over stdio, say) can too.
func ParseResponse(tool string, response []byte) (*Result, error) {
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(response, &msg); err != nil {
		return nil, fmt.Errorf("mcperrtest: the response is not a JSON-RPC message: %w", err)
	}
	r := &Result{Tool: tool, Raw: bytes.Clone(response)}
	if msg.Error != nil {
		r.ProtocolError = &ProtocolError{Code: msg.Error.Code, Message: msg.Error.Message, Data: msg.Error.Data}
		return r, nil
	}
	if len(msg.Result) == 0 || string(msg.Result) == "null" {
		return nil, errors.New("mcperrtest: the response has neither a result nor an error")
	}
	var res struct {
		Content           []json.RawMessage          `json:"content"`
		IsError           bool                       `json:"isError"`
		Meta              map[string]json.RawMessage `json:"_meta"`
		StructuredContent json.RawMessage            `json:"structuredContent"`
	}
	if err := json.Unmarshal(msg.Result, &res); err != nil {
		return nil, fmt.Errorf("mcperrtest: the result is not a tool result: %w", err)
	}
	r.IsError = res.IsError
	r.Meta = res.Meta
	if len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		r.StructuredContent = res.StructuredContent
	}
	for i, raw := range res.Content {
		var c struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("mcperrtest: content[%d] is not a content block: %w", i, err)
		}
		r.Content = append(r.Content, Content{Type: c.Type, Text: c.Text, Raw: raw})
	}
	env, err := envelopeOf(res.Meta)
	if err != nil {
		return nil, err
	}
	r.Envelope = env
	return r, nil
}

// envelopeOf decodes the mcperr envelope in meta, or returns nil when there
// is none. Unlike the adapters' EnvelopeOf, it keeps an envelope that says
// "error": false or has no code, so that an assertion can report it.
func envelopeOf(meta map[string]json.RawMessage) (*filter.Envelope, error) {
	raw, ok := meta[filter.MetaKey]
	if !ok {
		return nil, nil
	}
	var env filter.Envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("mcperrtest: _meta[%q] is not an mcperr envelope: %w", filter.MetaKey, err)
	}
	return &env, nil
}
