// Package api is kubeserver's own tool framework, as the Kubernetes MCP
// server's is: a handler has a shape of its own and puts a tool's failure in
// its result's Error field; the package that makes the server turns that
// result into the SDK's.
package api

import (
	"context"
	"fmt"
)

// Params is what a handler is given: the call's context and arguments.
type Params struct {
	Context   context.Context
	Arguments map[string]any
	Client    Cluster
}

// GetArguments returns the call's arguments.
func (p Params) GetArguments() map[string]any { return p.Arguments }

// Cluster is the API the tools call.
type Cluster interface {
	Get(ctx context.Context, path string) (string, error)
}

// Result is what a handler returns. Error is the tool's failure, sent back
// to the model.
type Result struct {
	Content string
	Error   error
}

// NewResult returns a result with the content, or the failure err.
func NewResult(content string, err error) *Result {
	return &Result{Content: content, Error: err}
}

// Handler handles one tool's calls.
type Handler func(params Params) (*Result, error)

// Tool is a tool's name, description and handler.
type Tool struct {
	Name        string
	Description string
	Required    []string
	Handler     Handler
}

// RequiredString returns the string argument key, or a message for the
// model when it is missing or not a string.
func RequiredString(params Params, key string) (string, error) {
	v, ok := params.GetArguments()[key]
	if !ok {
		return "", fmt.Errorf("%s parameter required", key)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s parameter must be a string", key)
	}
	return s, nil
}
