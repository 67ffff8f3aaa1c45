package codes

// Info describes a code: its category, a one-line description for
// documentation, and whether a caller may retry the same request.
type Info struct {
	// Code is the code described.
	Code Code `json:"code"`
	// Category says who is at fault.
	Category Category `json:"category"`
	// Description is one line for documentation. It is never sent in place
	// of an error's own message.
	Description string `json:"description"`
	// Retryable reports whether the same request may succeed if tried again.
	Retryable bool `json:"retryable"`
}

// validate checks that in can be registered.
func (in Info) validate() error {
	if err := in.Code.Validate(); err != nil {
		return err
	}
	switch in.Category {
	case Client, Business, Server:
	default:
		return &DefinitionError{Code: InvalidCode, Subject: string(in.Code),
			Reason: "a code needs a category: codes.Client, codes.Business or codes.Server"}
	}
	return nil
}
