package codes

// The built-in codes. They are always known to every Registry.
const (
	// ValidationError: the arguments do not fit the tool's input schema or
	// rules; the details say which fields and how.
	ValidationError Code = "VALIDATION_ERROR"
	// NotFound: the resource the call names does not exist.
	NotFound Code = "NOT_FOUND"
	// Unauthorized: the caller is not authenticated.
	Unauthorized Code = "UNAUTHORIZED"
	// Forbidden: the caller is authenticated but may not do this.
	Forbidden Code = "FORBIDDEN"
	// Conflict: the request conflicts with the current state (a duplicate key).
	Conflict Code = "CONFLICT"
	// RateLimited: too many requests; retry later.
	RateLimited Code = "RATE_LIMITED"
	// Cancelled: the request was cancelled before the tool finished.
	Cancelled Code = "CANCELLED"
	// Timeout: the tool ran out of time (a deadline was exceeded).
	Timeout Code = "TIMEOUT"
	// ToolFailed, the default code of a ToolError: the tool refused the call.
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
	{Code: ValidationError, Category: Client, Description: "The arguments do not fit the tool's input schema or rules."},
	{Code: NotFound, Category: Client, Description: "The requested resource does not exist."},
	{Code: Unauthorized, Category: Client, Description: "The caller is not authenticated."},
	{Code: Forbidden, Category: Client, Description: "The caller may not perform this action."},
	{Code: Conflict, Category: Client, Description: "The request conflicts with the current state of the resource."},
	{Code: RateLimited, Category: Client, Description: "Too many requests; retry later.", Retryable: true},
	{Code: Cancelled, Category: Client, Description: "The request was cancelled before the tool finished.", Retryable: true},
	{Code: Timeout, Category: Server, Description: "The tool did not finish in time.", Retryable: true},
	{Code: ToolFailed, Category: Client, Description: "The tool refused the call; the message says why."},
	{Code: BusinessRuleViolation, Category: Business, Description: "A business rule refused the request."},
	{Code: InternalError, Category: Server, Description: "The server failed; the reference identifies the log record."},
	{Code: DatabaseError, Category: Server, Description: "The database failed.", Retryable: true},
	{Code: ExternalServiceError, Category: Server, Description: "A service the tool depends on failed.", Retryable: true},
	{Code: Unavailable, Category: Server, Description: "The server cannot serve the request right now.", Retryable: true},
}
