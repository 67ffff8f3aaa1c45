package codes

// The built-in codes. They are always known to every Registry.
const (
	// ValidationError: the arguments do not fit the tool's input schema or
	// its rules. The details say which fields and what was wrong.
	ValidationError Code = "VALIDATION_ERROR"
	// NotFound: the resource the call names does not exist.
	NotFound Code = "NOT_FOUND"
	// Unauthorized: the caller is not authenticated.
	Unauthorized Code = "UNAUTHORIZED"
	// Forbidden: the caller is authenticated but may not do this.
	Forbidden Code = "FORBIDDEN"
	// Conflict: the request conflicts with the current state, such as a
	// duplicate key.
	Conflict Code = "CONFLICT"
	// RateLimited: too many requests; retry later.
	RateLimited Code = "RATE_LIMITED"
	// Cancelled: the request was cancelled before the tool finished.
	Cancelled Code = "CANCELLED"
	// Timeout: the tool ran out of time (a deadline was exceeded).
	Timeout Code = "TIMEOUT"
	// ToolFailed is the default code of a ToolError that names none: the
	// tool refused the call with a message written for the model.
	ToolFailed Code = "TOOL_ERROR"

	// BusinessRuleViolation: a business rule refused the request. Prefer a
	// registered code that names the rule, such as INSUFFICIENT_FUNDS.
	BusinessRuleViolation Code = "BUSINESS_RULE_VIOLATION"

	// InternalError: the server failed. The client sees only a reference.
	InternalError Code = "INTERNAL_ERROR"
	// DatabaseError: the database failed.
	DatabaseError Code = "DATABASE_ERROR"
	// ExternalServiceError: a service the tool depends on failed.
	ExternalServiceError Code = "EXTERNAL_SERVICE_ERROR"
	// Unavailable: the server cannot serve the request right now.
	Unavailable Code = "UNAVAILABLE"
)

// builtins is the fixed table of built-in codes, in documentation order.
var builtins = [...]Info{
	{ValidationError, Client, "The arguments do not fit the tool's input schema or rules.", false},
	{NotFound, Client, "The requested resource does not exist.", false},
	{Unauthorized, Client, "The caller is not authenticated.", false},
	{Forbidden, Client, "The caller may not perform this action.", false},
	{Conflict, Client, "The request conflicts with the current state of the resource.", false},
	{RateLimited, Client, "Too many requests; retry later.", true},
	{Cancelled, Client, "The request was cancelled before the tool finished.", true},
	{Timeout, Server, "The tool did not finish in time.", true},
	{ToolFailed, Client, "The tool refused the call; the message says why.", false},
	{BusinessRuleViolation, Business, "A business rule refused the request.", false},
	{InternalError, Server, "The server failed; the reference identifies the log record.", false},
	{DatabaseError, Server, "The database failed.", true},
	{ExternalServiceError, Server, "A service the tool depends on failed.", true},
	{Unavailable, Server, "The server cannot serve the request right now.", true},
}

// Builtin returns the built-in codes with their information, in
// documentation order. The slice is a fresh copy.
func Builtin() []Info {
	out := make([]Info, len(builtins))
	copy(out, builtins[:])
	return out
}

// lookupBuiltin returns the information of a built-in code.
func lookupBuiltin(c Code) (Info, bool) {
	for _, in := range builtins {
		if in.Code == c {
			return in, true
		}
	}
	return Info{}, false
}
