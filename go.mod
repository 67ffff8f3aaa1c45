module github.com/mcperr/mcperr

go 1.25.5

require (
	github.com/cockroachdb/errors v1.14.0
	github.com/cockroachdb/redact v1.1.5
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/text v0.32.0
)

require (
	github.com/cockroachdb/logtags v0.0.0-20230118201751-21c54148d20b // indirect
	github.com/getsentry/sentry-go v0.46.0 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/kr/pretty v0.3.1 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/rogpeppe/go-internal v1.14.1 // indirect
	github.com/stretchr/testify v1.11.1 // indirect
	golang.org/x/sys v0.41.0 // indirect
)
