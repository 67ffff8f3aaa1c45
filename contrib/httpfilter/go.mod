module github.com/mcperr/mcperr/contrib/httpfilter

go 1.25.5

require (
	github.com/google/go-github/v84 v84.0.0
	github.com/mark3labs/mcp-go v1.0.0
	github.com/mcperr/mcperr v0.0.0
	github.com/modelcontextprotocol/go-sdk v1.3.0
)

require (
	github.com/cockroachdb/redact v1.1.5 // indirect
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/text v0.32.0 // indirect
)

replace github.com/mcperr/mcperr => ../..
