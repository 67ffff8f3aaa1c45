// Package lookup finds users for the server's tools.
package lookup

import (
	"errors"
	"fmt"
	"net/http"
)

// ErrNoDirectory says the server has no user directory configured for
// lookups yet.
var ErrNoDirectory = errors.New("the user directory is not ready; retry later") // want: lost

// Client calls the directory.
type Client struct {
	Base string
	HTTP *http.Client
}

// User finds a user by login.
func (c *Client) User(login string) (string, error) {
	if c.HTTP == nil {
		return "", ErrNoDirectory
	}
	if len(login) > 39 {
		return "", fmt.Errorf("login %q is longer than 39 characters", login) // want: lost
	}
	resp, err := c.HTTP.Get(c.Base + "/users/" + login)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	return login, nil
}
