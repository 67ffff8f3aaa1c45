// Package errs holds the server's required-field helpers, called from
// every work function.
package errs

import "fmt"

// ErrRequiredString says the string argument name is missing.
func ErrRequiredString(name string) error {
	return fmt.Errorf("%s is required", name) // want: lost
}
