// Command dsserver serves dsserver on standard input and output, with
// mcperr installed in report-only mode: its failures reach clients as
// before, and are logged with what mcperr would send.
package main

import (
	"log"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/server"

	"example.com/vettest/dsserver"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
)

func main() {
	s := dsserver.New(&dsserver.Client{URL: os.Getenv("DS_URL"), Token: os.Getenv("DS_TOKEN"), HTTP: http.DefaultClient})
	p, err := filter.New(filter.WithReportOnly(true))
	if err != nil {
		log.Fatal(err)
	}
	if err := mcpgo.Install(s, p); err != nil {
		log.Fatal(err)
	}
	if err := server.ServeStdio(s); err != nil {
		log.Fatal(err)
	}
}
