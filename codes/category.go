package codes

// Category groups codes by who is at fault, like the 4xx and 5xx classes of
// HTTP. It decides the level a failure is logged at: server errors at error
// level, client and business errors below it.
type Category int

const (
	// Client means the caller asked for something wrong: bad arguments, a
	// missing resource, no permission. The model can usually correct itself.
	Client Category = iota + 1
	// Business means a rule of the application refused an otherwise valid
	// request, such as a transfer larger than the balance.
	Business
	// Server means the server failed. Its details stay on the server.
	Server
)

// String returns "client", "business", "server", or "unknown".
func (c Category) String() string {
	switch c {
	case Client:
		return "client"
	case Business:
		return "business"
	case Server:
		return "server"
	}
	return "unknown"
}

// MarshalText implements encoding.TextMarshaler.
func (c Category) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: it reads "client",
// "business" or "server", as MarshalText writes them.
func (c *Category) UnmarshalText(text []byte) error {
	switch string(text) {
	case "client":
		*c = Client
	case "business":
		*c = Business
	case "server":
		*c = Server
	default:
		return &DefinitionError{Code: InvalidCode, Subject: string(text),
			Reason: `a category is "client", "business" or "server"`}
	}
	return nil
}
