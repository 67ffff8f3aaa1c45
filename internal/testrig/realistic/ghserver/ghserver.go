// Package ghserver is a small MCP server in front of a GitHub-like REST API,
// on github.com/modelcontextprotocol/go-sdk, written as public servers of its
// kind are: raw tool handlers that read their arguments from a map with
// helpers of their own (numbers accepted as JSON numbers or numeric
// strings), error results built from upstream failures with the upstream's
// URL and status in their text, and some upstream failures returned as
// plain Go errors instead.
//
// New takes the hook where an adopter installs middleware, such as mcperr,
// right after the server is made; the server itself knows nothing of
// mcperr.
package ghserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures a server at its constructor.
type Options struct {
	// Server are the options given to mcp.NewServer.
	Server *mcp.ServerOptions
	// Setup, when set, runs on the server right after mcp.NewServer,
	// before any tool is added: the place to install middleware. New
	// fails with its error.
	Setup func(*mcp.Server) error
	// Middleware, when set, wraps the handler of each tool as it is added,
	// given the tool's name.
	Middleware func(tool string, h mcp.ToolHandler) mcp.ToolHandler
	// HTTPClient calls the API; http.DefaultClient if nil.
	HTTPClient *http.Client
	// Token authenticates the calls to the API.
	Token string
}

// New returns a server whose tools call the API at baseURL.
func New(baseURL string, opts Options) (*mcp.Server, error) {
	base, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("ghserver: base URL: %w", err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "gh", Version: "0.9.2"}, opts.Server)
	if opts.Setup != nil {
		if err := opts.Setup(s); err != nil {
			return nil, err
		}
	}
	c := &client{base: base, http: opts.HTTPClient, token: opts.Token}
	if c.http == nil {
		c.http = http.DefaultClient
	}
	add := func(tool *mcp.Tool, h mcp.ToolHandler) {
		if opts.Middleware != nil {
			h = opts.Middleware(tool.Name, h)
		}
		s.AddTool(tool, h)
	}
	add(&mcp.Tool{
		Name:        "get_issue",
		Description: "Get an issue of a repository.",
		InputSchema: object(map[string]*jsonschema.Schema{
			"owner":        {Type: "string", Description: "Owner of the repository"},
			"repo":         {Type: "string", Description: "Name of the repository"},
			"issue_number": {Type: "number", Description: "Number of the issue"},
		}, "owner", "repo", "issue_number"),
	}, c.getIssue)
	add(&mcp.Tool{
		Name:        "list_issues",
		Description: "List the issues of a repository.",
		InputSchema: object(map[string]*jsonschema.Schema{
			"owner":    {Type: "string"},
			"repo":     {Type: "string"},
			"state":    {Type: "string", Enum: []any{"open", "closed", "all"}},
			"per_page": {Type: "number", Description: "Issues per page, 1 to 100"},
		}, "owner", "repo"),
	}, c.listIssues)
	add(&mcp.Tool{
		Name:        "create_comment",
		Description: "Comment on an issue.",
		InputSchema: object(map[string]*jsonschema.Schema{
			"owner":        {Type: "string"},
			"repo":         {Type: "string"},
			"issue_number": {Type: "number"},
			"body":         {Type: "string", Description: "Markdown text of the comment"},
		}, "owner", "repo", "issue_number", "body"),
	}, c.createComment)
	return s, nil
}

// object returns the schema of an object with properties, which takes no
// others.
func object(props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Properties: props, Required: required, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
}

// toolError returns an error result whose text is message.
func toolError(message string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: message}}}
}

// toolErrorFromErr returns an error result whose text is message and the
// error's.
func toolErrorFromErr(message string, err error) *mcp.CallToolResult {
	return toolError(fmt.Sprintf("%s: %v", message, err))
}

// textResult returns a result whose text is the JSON of v.
func textResult(v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("marshal result: %w", err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
}

// Issue is an issue as the API sends it.
type Issue struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	State  string `json:"state"`
	User   struct {
		Login string `json:"login"`
	} `json:"user"`
}

// Comment is a comment as the API sends it.
type Comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	HTMLURL string `json:"html_url"`
}

// client calls the API.
type client struct {
	base  *url.URL
	http  *http.Client
	token string
}

// APIError is an answer of the API with a status other than 2xx.
type APIError struct {
	Method     string
	URL        string
	StatusCode int
	Message    string
}

// Error returns the request, the status and the API's message.
func (e *APIError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.URL, e.StatusCode, e.Message)
}

// do sends a request to the API and decodes its answer into out.
func (c *client) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	u := c.base.JoinPath(path)
	u.RawQuery = query.Encode()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var msg struct {
			Message string `json:"message"`
		}
		_ = json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&msg)
		return &APIError{Method: method, URL: u.String(), StatusCode: resp.StatusCode, Message: msg.Message}
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// isNotFound reports whether err is the API's 404.
func isNotFound(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound
}

// repoArgs reads owner and repo.
func repoArgs(args map[string]any) (owner, repo string, err error) {
	if owner, err = requiredParam[string](args, "owner"); err != nil {
		return "", "", err
	}
	if repo, err = requiredParam[string](args, "repo"); err != nil {
		return "", "", err
	}
	return owner, repo, nil
}

func (c *client) getIssue(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, err := arguments(req)
	if err != nil {
		return toolError(err.Error()), nil
	}
	owner, repo, err := repoArgs(args)
	if err != nil {
		return toolError(err.Error()), nil
	}
	n, err := requiredInt(args, "issue_number")
	if err != nil {
		return toolError(err.Error()), nil
	}
	var issue Issue
	err = c.do(ctx, http.MethodGet, fmt.Sprintf("repos/%s/%s/issues/%d", owner, repo, n), nil, nil, &issue)
	if isNotFound(err) {
		return nil, fmt.Errorf("issue #%d not found in %s/%s: %w", n, owner, repo, err)
	}
	if err != nil {
		return toolErrorFromErr("failed to get issue", err), nil
	}
	return textResult(issue)
}

func (c *client) listIssues(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, err := arguments(req)
	if err != nil {
		return toolError(err.Error()), nil
	}
	owner, repo, err := repoArgs(args)
	if err != nil {
		return toolError(err.Error()), nil
	}
	state, err := optionalString(args, "state", "open")
	if err != nil {
		return toolError(err.Error()), nil
	}
	perPage, err := optionalInt(args, "per_page", 30)
	if err != nil {
		return toolError(err.Error()), nil
	}
	var issues []Issue
	q := url.Values{"state": {state}, "per_page": {fmt.Sprint(perPage)}}
	if err := c.do(ctx, http.MethodGet, fmt.Sprintf("repos/%s/%s/issues", owner, repo), q, nil, &issues); err != nil {
		return toolErrorFromErr("failed to list issues", err), nil
	}
	return textResult(issues)
}

// commentArgs are the arguments create_comment knows.
var commentArgs = []string{"body", "issue_number", "owner", "repo"}

func (c *client) createComment(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, err := arguments(req)
	if err != nil {
		return toolError(err.Error()), nil
	}
	if err := unknownArgument(args, commentArgs); err != nil {
		return nil, err
	}
	owner, repo, err := repoArgs(args)
	if err != nil {
		return toolError(err.Error()), nil
	}
	n, err := requiredInt(args, "issue_number")
	if err != nil {
		return toolError(err.Error()), nil
	}
	body, err := requiredParam[string](args, "body")
	if err != nil {
		return toolError(err.Error()), nil
	}
	var comment Comment
	err = c.do(ctx, http.MethodPost, fmt.Sprintf("repos/%s/%s/issues/%d/comments", owner, repo, n), nil, map[string]string{"body": strings.TrimSpace(body)}, &comment)
	if isNotFound(err) {
		return nil, err
	}
	if err != nil {
		return toolErrorFromErr("failed to create comment", err), nil
	}
	return textResult(comment)
}
