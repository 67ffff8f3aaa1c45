// Package errs holds the server's required-field helpers, called from
// every work function.
package errs

import "fmt"

// ErrRequiredString says the string argument name is missing.
func ErrRequiredString(name string) error {
	return fmt.Errorf("%s is required", name) // want: lost
}

// InputError says what is wrong with one of the tool's arguments.
type InputError struct{ Field, Problem string }

func (e *InputError) Error() string { return e.Field + " " + e.Problem } // want: lost

// Invalid returns the InputError of field.
func Invalid(field, problem string) error {
	return &InputError{Field: field, Problem: problem}
}
