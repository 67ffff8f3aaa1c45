// Package argmsgs writes messages about a tool's arguments for other
// packages of the module.
package argmsgs

import "fmt"

// Required says the argument name is missing.
func Required(name string) error {
	return fmt.Errorf("%s is required", name)
}

// Wrap wraps an error with the module's words.
func Wrap(err error) error {
	return fmt.Errorf("wrapped: %w", err)
}
