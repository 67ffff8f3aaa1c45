// Package httpwrapper is an MCP server on the official go-sdk that wraps a
// helpdesk's REST API, written the way such wrappers are written: typed
// tools, results built by hand from the HTTP status or the error in places,
// domain errors where the service layer knows what went wrong.
//
// Lines that should be reported by mcperrvet end with "// want: leak"; lines
// that look alike but are safe carry a "// safe:" comment saying why.
package httpwrapper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

var ticketID = regexp.MustCompile(`^T-[0-9]{1,9}$`)

// Tools serves the helpdesk through c.
type Tools struct {
	c   *Client
	log *slog.Logger
}

// NewServer returns the helpdesk MCP server.
func NewServer(c *Client, logger *slog.Logger) (*mcp.Server, error) {
	p, err := filter.New(filter.WithLogger(logger), filter.WithFilters(apiErrors))
	if err != nil {
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "helpdesk", Version: "0.9.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		return nil, err
	}
	t := &Tools{c: c, log: logger}
	for _, add := range []func() error{
		func() error {
			return gosdk.AddTool(s, &mcp.Tool{Name: "get_ticket", Description: "Read a ticket."}, t.getTicket)
		},
		func() error {
			return gosdk.AddTool(s, &mcp.Tool{Name: "search_tickets", Description: "Search tickets by text and status."}, t.searchTickets)
		},
		func() error {
			return gosdk.AddTool(s, &mcp.Tool{Name: "create_ticket", Description: "Open a ticket."}, t.createTicket)
		},
		func() error {
			return gosdk.AddTool(s, &mcp.Tool{Name: "add_comment", Description: "Comment on a ticket."}, t.addComment)
		},
		func() error {
			return gosdk.AddTool(s, &mcp.Tool{Name: "tag_ticket", Description: "Add tags to a ticket."}, t.tagTicket)
		},
		func() error {
			return gosdk.AddTool(s, &mcp.Tool{Name: "assign_ticket", Description: "Assign a ticket to an agent."}, t.assignTicket)
		},
	} {
		if err := add(); err != nil {
			return nil, err
		}
	}
	// Added with the SDK's own function: Install's middleware covers it too.
	mcp.AddTool(s, &mcp.Tool{Name: "close_ticket", Description: "Close a ticket."}, t.closeTicket)
	return s, nil
}

// apiErrors answers the helpdesk's refusals the model can act on.
var apiErrors = filter.Catch(func(_ context.Context, _ filter.Call, e *APIError) (*filter.Response, error) {
	switch e.Status {
	case http.StatusForbidden:
		return &filter.Response{Code: codes.Forbidden, Message: "The helpdesk refused access to this ticket."}, nil // safe: a constant message
	case http.StatusBadGateway, http.StatusServiceUnavailable:
		return &filter.Response{
			Code:    codes.ExternalServiceError,
			Message: fmt.Sprintf("The helpdesk is unavailable (%v).", e), // want: leak
			Hints:   []string{"Try again in a few minutes."},
		}, nil
	}
	return nil, nil // rethrow: masked by mcperr
})

// NewReadOnlyServer serves the reading tools only, for the support portal's
// assistant.
func NewReadOnlyServer(c *Client) *mcp.Server {
	t := &Tools{c: c, log: slog.Default()}
	s := mcp.NewServer(&mcp.Implementation{Name: "helpdesk-readonly", Version: "0.9.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "get_ticket", Description: "Read a ticket."}, t.getTicket) // want: leak
	mcp.AddTool(s, &mcp.Tool{Name: "search_tickets", Description: "Search tickets by text and status."}, t.searchTickets)
	return s
}

type ticketArgs struct {
	ID string `json:"id" jsonschema:"the ticket id, such as T-1042"`
}

func (t *Tools) getTicket(ctx context.Context, _ *mcp.CallToolRequest, in ticketArgs) (*mcp.CallToolResult, Ticket, error) {
	if !ticketID.MatchString(in.ID) {
		return nil, Ticket{}, domain.NewValidation("id", in.ID, "a ticket id such as T-1042") // safe: a domain error
	}
	var tk Ticket
	resp, err := t.c.do(ctx, http.MethodGet, "/tickets/"+url.PathEscape(in.ID), nil, &tk)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil, Ticket{}, domain.NewNotFound("ticket", in.ID) // safe: a domain error
	}
	if resp != nil && resp.StatusCode >= 500 {
		return &mcp.CallToolResult{ // safe: only the status line of the helpdesk
			IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: "The helpdesk answered " + resp.Status + "; try again later."}},
		}, Ticket{}, nil
	}
	if err != nil {
		return nil, Ticket{}, err // safe: returned, masked by mcperr
	}
	return nil, tk, nil
}

type searchArgs struct {
	Query  string `json:"query"`
	Status string `json:"status,omitempty" jsonschema:"open, pending or closed"`
	Limit  int    `json:"limit,omitempty"`
}

type searchResult struct {
	Tickets []Ticket `json:"tickets"`
}

func (t *Tools) searchTickets(ctx context.Context, _ *mcp.CallToolRequest, in searchArgs) (*mcp.CallToolResult, searchResult, error) {
	if strings.TrimSpace(in.Query) == "" {
		return &mcp.CallToolResult{ // safe: a constant message
			IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: "The query is empty."}},
		}, searchResult{}, nil
	}
	q := url.Values{"q": {in.Query}, "status": {in.Status}}
	if in.Limit > 0 {
		q.Set("limit", fmt.Sprint(in.Limit))
	}
	var out searchResult
	if _, err := t.c.do(ctx, http.MethodGet, "/tickets?"+q.Encode(), nil, &out); err != nil {
		t.log.WarnContext(ctx, "search failed", "err", err) // safe: the log
		return &mcp.CallToolResult{
			IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}, // want: leak
		}, searchResult{}, nil
	}
	return nil, out, nil
}

type createArgs struct {
	Subject string   `json:"subject"`
	Body    string   `json:"body"`
	Tags    []string `json:"tags,omitempty"`
}

func (t *Tools) createTicket(ctx context.Context, _ *mcp.CallToolRequest, in createArgs) (*mcp.CallToolResult, Ticket, error) {
	if len(in.Subject) > 200 {
		return nil, Ticket{}, domain.NewValidation("subject", len(in.Subject), "at most 200 characters") // safe: a domain error
	}
	var tk Ticket
	resp, err := t.c.do(ctx, http.MethodPost, "/tickets", in, &tk)
	if resp != nil && resp.StatusCode == http.StatusConflict {
		return nil, Ticket{}, domain.NewConflict("ticket", "A ticket with this subject is already open.") // safe: a domain error
	}
	if err != nil {
		return nil, Ticket{}, fmt.Errorf("create ticket: %w", err) // safe: returned, masked by mcperr
	}
	return nil, tk, nil
}

type commentArgs struct {
	ID       string `json:"id"`
	Body     string `json:"body"`
	Internal bool   `json:"internal,omitempty"`
}

type commentResult struct {
	CommentID string `json:"commentId"`
}

func (t *Tools) addComment(ctx context.Context, _ *mcp.CallToolRequest, in commentArgs) (*mcp.CallToolResult, commentResult, error) {
	var out commentResult
	_, err := t.c.do(ctx, http.MethodPost, "/tickets/"+url.PathEscape(in.ID)+"/comments", in, &out)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, commentResult{}, toolerr.New("The helpdesk is slow; try again in a minute.").WithCause(err) // safe: a ToolError with a cause for the log
	}
	if err != nil {
		res := &mcp.CallToolResult{IsError: true}
		res.Content = []mcp.Content{&mcp.TextContent{Text: "Could not add the comment: " + describe(err)}} // want: leak
		return res, commentResult{}, nil
	}
	return nil, out, nil
}

type tagArgs struct {
	ID   string   `json:"id"`
	Tags []string `json:"tags"`
}

func (t *Tools) tagTicket(ctx context.Context, _ *mcp.CallToolRequest, in tagArgs) (*mcp.CallToolResult, any, error) {
	var tk Ticket
	resp, err := t.c.do(ctx, http.MethodGet, "/tickets/"+url.PathEscape(in.ID), nil, &tk)
	if err != nil {
		status := "no answer"
		if resp != nil {
			status = http.StatusText(resp.StatusCode)
		}
		return &mcp.CallToolResult{ // safe: userMessage and StatusText return fixed sentences
			IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: userMessage(err) + " (" + status + ")"}},
		}, nil, nil
	}
	res := &mcp.CallToolResult{}
	for _, tag := range in.Tags {
		if slices.Contains(tk.Tags, tag) {
			continue
		}
		if _, err := t.c.do(ctx, http.MethodPost, "/tickets/"+url.PathEscape(in.ID)+"/tags", map[string]string{"tag": tag}, nil); err != nil {
			res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf("tag %s: %v", tag, err)}) // want: leak
			res.IsError = true
			continue
		}
		res.Content = append(res.Content, &mcp.TextContent{Text: "tagged " + tag}) // safe: no error in it
	}
	return res, nil, nil
}

type assignArgs struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
}

func (t *Tools) assignTicket(ctx context.Context, _ *mcp.CallToolRequest, in assignArgs) (*mcp.CallToolResult, Ticket, error) {
	var tk Ticket
	resp, err := t.c.do(ctx, http.MethodPut, "/tickets/"+url.PathEscape(in.ID)+"/assignee", map[string]string{"agent": in.Agent}, &tk)
	if resp != nil && resp.StatusCode == http.StatusUnprocessableEntity {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "That agent is not on the ticket's team."}}}
		res.SetError(err) // safe: the content is set; the error is for the middleware
		return res, Ticket{}, nil
	}
	if err != nil {
		var res mcp.CallToolResult
		res.SetError(err) // safe: under Install, the middleware maps an error set with SetError
		return &res, Ticket{}, nil
	}
	return nil, tk, nil
}

type closeArgs struct {
	ID     string `json:"id"`
	Reason string `json:"reason,omitempty"`
}

type closeResult struct {
	Closed bool `json:"closed"`
}

func (t *Tools) closeTicket(ctx context.Context, _ *mcp.CallToolRequest, in closeArgs) (*mcp.CallToolResult, closeResult, error) {
	if in.Reason != "" && len(in.Reason) < 10 {
		return &mcp.CallToolResult{ // safe: only the caller's own value
			IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("The reason %q is too short; write at least 10 characters.", in.Reason)}},
		}, closeResult{}, nil
	}
	resp, err := t.c.do(ctx, http.MethodPost, "/tickets/"+url.PathEscape(in.ID)+"/close", map[string]string{"reason": in.Reason}, nil)
	if resp != nil && resp.StatusCode == http.StatusBadRequest {
		return nil, closeResult{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "close " + in.ID + ": " + err.Error()} // want: leak
	}
	if err != nil {
		return nil, closeResult{}, err // safe: returned, masked by mcperr
	}
	return nil, closeResult{Closed: true}, nil
}
