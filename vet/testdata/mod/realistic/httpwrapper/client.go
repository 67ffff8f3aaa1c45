package httpwrapper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/mcperr/mcperr/domain"
)

// Client calls the helpdesk's REST API.
type Client struct {
	BaseURL string // such as https://helpdesk.internal/api/v2
	Token   string
	HTTP    *http.Client
}

// Ticket is a helpdesk ticket.
type Ticket struct {
	ID       string   `json:"id"`
	Subject  string   `json:"subject"`
	Status   string   `json:"status"`
	Assignee string   `json:"assignee,omitempty"`
	Tags     []string `json:"tags,omitempty"`
}

// APIError is the helpdesk's error body for a status it refused with.
type APIError struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	TraceID string `json:"trace_id"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("helpdesk API %d %s: %s (trace %s)", e.Status, e.Code, e.Message, e.TraceID)
}

// do sends the request and decodes the answer into out. Statuses the service
// layer cares about become domain errors; others an *APIError.
func (c *Client) do(ctx context.Context, method, path string, body, out any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err // *url.Error: method, full URL and the dial error
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return resp, domain.NewRateLimited(time.Duration(secs) * time.Second)
	case resp.StatusCode >= 400:
		apiErr := &APIError{Status: resp.StatusCode}
		_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(apiErr)
		return resp, apiErr
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			return resp, fmt.Errorf("decode %s %s: %w", method, path, err)
		}
	}
	return resp, nil
}

// describe turns an error of the client into a sentence for a result.
func describe(err error) string {
	var apiErr *APIError
	var urlErr *url.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "the helpdesk did not answer in time"
	case errors.As(err, &apiErr):
		return apiErr.Message
	case errors.As(err, &urlErr):
		return "could not reach the helpdesk: " + urlErr.Err.Error()
	default:
		return err.Error()
	}
}

// userMessage is the sentence a model reads for an error of the client: it
// names the kind of failure and never repeats the error's text.
func userMessage(err error) string {
	var apiErr *APIError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "The helpdesk did not answer in time."
	case errors.As(err, &apiErr) && apiErr.Status == http.StatusForbidden:
		return "The helpdesk refused access to this ticket."
	case errors.As(err, &apiErr):
		return "The helpdesk refused the request."
	default:
		return "The helpdesk could not be reached."
	}
}
