// Package maskedlib is a server's client package, which imports no SDK: its
// functions' facts tell the handlers' package which errors hold messages
// for the model.
package maskedlib

import (
	"errors"
	"fmt"
	"os"
)

// Client reads datasources.
type Client struct{}

// Datasource returns a message for the model when the uid is unknown.
func (c *Client) Datasource(uid string) (string, error) { // want Datasource:`modelMessage\(datasource with UID %s not found\)`
	ds, ok := datasources[uid]
	if !ok {
		return "", fmt.Errorf("datasource with UID %s not found", uid)
	}
	return ds, nil
}

var datasources = map[string]string{"prom": "prometheus"}

// Validate returns a message made of a constant alone: across packages,
// as often the server's own state as advice, so no fact.
func Validate(name string) error {
	if name == "" {
		return errors.New("name must be lower case")
	}
	return nil
}

// Check returns a message made of its argument.
func Check(name string) error { // want Check:`modelMessage\(invalid name %q: must be lower case\)`
	if name != "" {
		return fmt.Errorf("invalid name %q: must be lower case", name)
	}
	return nil
}

// Read returns only a library's errors: no fact.
func Read(path string) ([]byte, error) {
	return os.ReadFile(path)
}
