// Package work holds the work functions the action router calls:
// func(ctx, *Client, T) (R, error).
package work

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"example.com/vettest/routerserver/errs"
	"example.com/vettest/routerserver/store"
	"github.com/mcperr/mcperr/toolerr"
	"github.com/yosida95/uritemplate/v3"
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
		return nil, fmt.Errorf("delete %s: %w", a.Name, err) // want: lost
	}
	resp.Body.Close()
	return nil, nil
}

// LogArgs are a work log's arguments.
type LogArgs struct {
	TimeSpent string `json:"time_spent"`
	Sprint    string `json:"sprint"`
	Ref       string `json:"ref"`
	Link      string `json:"link"`
}

// parseTimeSpent reads "3h" or "45m".
func parseTimeSpent(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimRight(s, "hm"))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("could not parse time: %s", s)
	}
	return n, nil
}

// lookupRef finds a reference.
func lookupRef(ref string) (string, error) {
	if !strings.HasPrefix(ref, "r-") {
		return "", toolerr.New("references start with r-")
	}
	return ref, nil
}

// Log logs work on a sprint; its wrappers format the errors they wrap
// with %v.
func Log(ctx context.Context, c *Client, a LogArgs) (*Project, error) {
	if _, err := parseTimeSpent(a.TimeSpent); err != nil {
		return nil, fmt.Errorf("invalid time_spent format: %v", err) // want: lost
	}
	if _, err := strconv.Atoi(a.Sprint); err != nil { // want: lost
		return nil, fmt.Errorf("invalid sprint: %v", err) // want: lost
	}
	if a.Ref == "" {
		return nil, fmt.Errorf("ref: %v", errs.ErrRequiredString("ref")) // want: lost
	}
	if err := checkSprint(a.Sprint); err != nil {
		return nil, fmt.Errorf("sprint: %v", err) // want: lost
	}
	if _, err := lookupRef(a.Ref); err != nil {
		return nil, fmt.Errorf("ref %q: %v", a.Ref, err) // want: lost
	}
	if _, err := uritemplate.New(a.Link); err != nil { // want: lost
		return nil, fmt.Errorf("invalid link: %s", err) // want: lost
	}
	resp, err := c.HTTP.Get(c.Base + "/log")
	if err != nil {
		return nil, fmt.Errorf("log work: %v", err) // want: lost
	}
	defer resp.Body.Close()
	if _, err := c.HTTP.Get(c.Base + "/ping"); err != nil {
		return nil, fmt.Errorf("ping: %s", err.Error()) // want: lost
	}
	if resp.StatusCode == http.StatusBadGateway {
		body, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("log work failed with status %d: %s", resp.StatusCode, body) // want: lost
	}
	if resp.StatusCode == http.StatusMovedPermanently {
		return nil, fmt.Errorf("log work moved: %s", location(resp.Header.Get("Location"))) // want: lost
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("log work failed with status %d: %s", resp.StatusCode, resp.Status) // want: lost
	}
	return nil, nil
}

// location is where an upstream says a resource moved: a string of a
// type of its own, which errors.New takes only as string(loc).
type location string

// checkSprint checks a sprint's name with the server's typed error.
func checkSprint(s string) error {
	if len(s) > 10 {
		return errs.Invalid("sprint", "is too long")
	}
	return nil
}

// SearchArgs are a search's arguments.
type SearchArgs struct {
	Query string `json:"query"`
}

// errNoIndex says the server has no search index yet.
var errNoIndex = errors.New("the search index is not built yet; retry later") // want: lost

// EndpointError says an endpoint of the upstream is missing: advice for
// the model, its cause kept for Unwrap only.
type EndpointError struct {
	Endpoint string
	Status   int
	Err      error
}

func (e *EndpointError) Error() string { // want: lost
	return fmt.Sprintf("the endpoint %s answered %d: it may not be supported by this version of the service", e.Endpoint, e.Status)
}

// Unwrap returns the cause.
func (e *EndpointError) Unwrap() error { return e.Err }

func search(c *Client, q string) error {
	if c.DB == nil {
		return errNoIndex
	}
	resp, err := c.HTTP.Get(c.Base + "/search?q=" + q)
	if err != nil {
		return &EndpointError{Endpoint: "/search", Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return &EndpointError{Endpoint: "/search", Status: resp.StatusCode}
	}
	return nil
}

// Search searches the projects; the step's words are a ToolError, its
// cause the server's own advice on some paths.
func Search(ctx context.Context, c *Client, a SearchArgs) (*Project, error) {
	if err := search(c, a.Query); err != nil {
		return nil, toolerr.New("search failed").WithCause(err)
	}
	return nil, nil
}
