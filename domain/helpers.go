package domain

// withCause appends the cause's text to msg for the log view.
func withCause(msg string, cause error) string {
	if cause == nil {
		return msg
	}
	return msg + ": " + cause.Error()
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
