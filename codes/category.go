package codes

// Category groups codes by who is at fault, like the 4xx and 5xx classes of
// HTTP. It decides the level a failure is logged at (server errors at error
// level, client and business errors below it) and whether a failure has a
// ref. It travels in the envelope as its text.
type Category string

const (
	// Client means the caller asked for something wrong: bad arguments, a
	// missing resource, no permission. The model can usually correct itself.
	Client Category = "client"
	// Business means a rule of the application refused an otherwise valid
	// request, such as a transfer larger than the balance.
	Business Category = "business"
	// Server means the server failed. Its details stay on the server.
	Server Category = "server"
)
