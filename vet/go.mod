module github.com/mcperr/mcperr/vet

go 1.25.5

require golang.org/x/tools v0.42.0

require github.com/mcperr/mcperr v0.0.0 // indirect

replace github.com/mcperr/mcperr => ../
