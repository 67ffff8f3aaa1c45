// Package fwapi is a server's own tool framework, as Kubernetes' MCP server
// has: a handler returns its failure in its result's Error field, and an
// adapter in another package turns that result into the SDK's.
package fwapi

import "fmt"

// Params holds a call's arguments.
type Params struct{ Args map[string]any }

// GetArguments returns the call's arguments.
func (p Params) GetArguments() map[string]any { return p.Args }

// Result is what a handler returns: Error is the failure sent to the model.
type Result struct {
	Content string
	Error   error
}

// HandlerFunc is a tool's handler.
type HandlerFunc func(Params) (*Result, error)

// Tool registers a handler under a name.
type Tool struct {
	Name    string
	Handler HandlerFunc
}

// NewResult returns a result with text content, or the failure err.
func NewResult(content string, err error) *Result { // want NewResult:"resultError"
	return NewResultFull(content, nil, err)
}

// NewResultFull returns a result with text and structured content, or the
// failure err.
func NewResultFull(text string, structured any, err error) *Result { // want NewResultFull:"resultError"
	_ = structured
	return &Result{Content: text, Error: err}
}

// Text returns a result with text content and no failure.
func Text(content string) *Result {
	return &Result{Content: content}
}

// RequiredString returns the string argument key, or a message for the
// model when it is missing.
func RequiredString(p Params, key string) (string, error) { // want RequiredString:"argValue" RequiredString:`modelMessage\(%s parameter required\)`
	v, ok := p.Args[key].(string)
	if !ok {
		return "", fmt.Errorf("%s parameter required", key)
	}
	return v, nil
}

// PromptParams holds a prompt's arguments, strings as MCP gives them.
type PromptParams struct{ Args map[string]string }

// GetArguments returns the prompt's arguments.
func (p PromptParams) GetArguments() map[string]string { return p.Args }

// PromptResult is what a prompt's handler returns.
type PromptResult struct {
	Text  string
	Error error
}

// Prompt registers a prompt's handler under a name.
type Prompt struct {
	Name    string
	Handler func(PromptParams) (*PromptResult, error)
}
