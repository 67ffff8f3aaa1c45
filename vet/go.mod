module github.com/mcperr/mcperr/vet

go 1.25.5

require (
	github.com/golangci/plugin-module-register v0.1.2
	golang.org/x/tools v0.42.0
)

require (
	github.com/google/go-cmp v0.7.0 // indirect
	golang.org/x/mod v0.33.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
)

replace github.com/mcperr/mcperr => ../
