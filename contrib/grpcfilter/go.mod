module github.com/mcperr/mcperr/contrib/grpcfilter

go 1.25.5

require github.com/mcperr/mcperr v0.0.0

replace github.com/mcperr/mcperr => ../..
