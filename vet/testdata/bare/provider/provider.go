// Package provider is a server's client of an upstream, in a package of
// its own: the facts of its functions tell the handlers' package which
// errors have a text the module wrote.
package provider

import (
	"errors"
	"fmt"
	"net/http"
)

// ErrNotReady is a sentinel: its text is the module's own.
var ErrNotReady = errors.New("the users cache is not ready yet")

// Provider calls the upstream.
type Provider struct{ ready bool }

// IsReady returns only sentinels: not reported where a handler returns it.
func (p *Provider) IsReady() (bool, error) { // want IsReady:"errorsFixed"
	if !p.ready {
		return false, ErrNotReady
	}
	return true, nil
}

// Check returns only messages made of constants and its arguments.
func Check(id string) error { // want Check:"errorsFixed"
	if id == "" {
		return errors.New("id is required")
	}
	return fmt.Errorf("no order %q", id)
}

// Fetch returns the HTTP client's errors: their text is a library's.
func (p *Provider) Fetch(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	return resp.Body.Close()
}
