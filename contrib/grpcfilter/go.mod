module github.com/mcperr/mcperr/contrib/grpcfilter

go 1.25.5

require (
	github.com/mark3labs/mcp-go v1.0.0
	github.com/mcperr/mcperr v0.0.0
	github.com/modelcontextprotocol/go-sdk v1.3.0
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260706201446-f0a921348800
	google.golang.org/grpc v1.84.0
	google.golang.org/protobuf v1.36.11
)

require (
	github.com/cockroachdb/redact v1.1.5 // indirect
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/net v0.57.0 // indirect
	golang.org/x/oauth2 v0.36.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.40.0 // indirect
)

// google.golang.org/genproto, at a version from after googleapis/rpc became
// a module of its own: github.com/cockroachdb/errors v1.14.0 requires one
// from before, and with both in one build (as in the repository's go.work)
// grpc's imports of googleapis/rpc are ambiguous. go mod tidy drops this
// line, since no package here imports the module: keep it.
require google.golang.org/genproto v0.0.0-20260319201613-d00831a3d3e7 // indirect

replace github.com/mcperr/mcperr => ../..
