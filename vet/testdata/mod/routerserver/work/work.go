// Package work holds the work functions the action router calls:
// func(ctx, *Client, T) (R, error).
package work

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"example.com/vettest/routerserver/errs"
	"example.com/vettest/routerserver/store"
)

// Client calls the upstream.
type Client struct {
	Region string
	Base   string
	HTTP   *http.Client
	DB     *store.DB
}

// ProjectArgs are a project's arguments.
type ProjectArgs struct {
	Name   string   `json:"name"`
	Labels []string `json:"labels"`
}

// Project is a project.
type Project struct{ Name string }

// maxLabels is how many labels a project takes.
var maxLabels = 3

// ValidationError is the server's own typed error.
type ValidationError struct{ Field, Problem string }

func (e *ValidationError) Error() string { return e.Field + ": " + e.Problem }

// Create creates a project.
func Create(ctx context.Context, c *Client, a ProjectArgs) (*Project, error) {
	if a.Name == "" {
		return nil, errs.ErrRequiredString("name")
	}
	if len(a.Labels) > maxLabels {
		return nil, fmt.Errorf("at most %d labels", maxLabels) // want: lost
	}
	var bad []string
	for _, l := range a.Labels {
		if strings.ContainsAny(l, " ,") {
			bad = append(bad, l)
		}
	}
	if len(bad) > 0 {
		msg := "invalid labels:"
		for _, b := range bad {
			msg += " " + b
		}
		return nil, errors.New(msg) // want: lost
	}
	resp, err := c.HTTP.Get(c.Base + "/projects")
	if err != nil {
		return nil, errors.New("The project service could not be reached; retry later.") // want: lost
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 {
		return nil, fmt.Errorf("Project request failed with HTTP %d. The project service is temporarily unavailable; retry later.", resp.StatusCode) // want: lost
	}
	return &Project{Name: a.Name}, c.DB.Query("insert")
}

// Delete deletes a project.
func Delete(ctx context.Context, c *Client, a ProjectArgs) (*Project, error) {
	if c.Region == "" {
		return nil, errors.New("region is not configured")
	}
	if strings.HasPrefix(a.Name, "-") {
		return nil, errs.Invalid("name", "must not start with a dash")
	}
	if _, err := strconv.Atoi(a.Name); err == nil {
		return nil, fmt.Errorf("project names are not numbers: %q", a.Name) // want: lost
	}
	if len(a.Labels) > 0 {
		n, err := strconv.Atoi(a.Labels[0]) // want: lost
		if err != nil {
			return nil, err
		}
		_ = n
	}
	if a.Name == "" {
		return nil, errs.ErrRequiredString("name")
	}
	resp, err := c.HTTP.Get(c.Base + "/projects/" + a.Name)
	if err != nil {
		return nil, fmt.Errorf("delete %s: %w", a.Name, err)
	}
	resp.Body.Close()
	return nil, nil
}
