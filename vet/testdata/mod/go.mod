module example.com/vettest

go 1.25.5

require github.com/mcperr/mcperr v0.0.0

require (
	github.com/cockroachdb/redact v1.1.5 // indirect
	github.com/google/uuid v1.6.0 // indirect
)

replace github.com/mcperr/mcperr => ../../..
