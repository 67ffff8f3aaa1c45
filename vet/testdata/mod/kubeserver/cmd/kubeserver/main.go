// Command kubeserver serves kubeserver on standard input and output, with
// mcperr installed in report-only mode: its failures reach clients as
// before, and are logged with what mcperr would send.
package main

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/vettest/kubeserver"
	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
)

func main() {
	s := kubeserver.New(&kubeserver.Cluster{URL: os.Getenv("KUBE_URL"), Token: os.Getenv("KUBE_TOKEN"), HTTP: http.DefaultClient})
	p, err := filter.New(filter.WithReportOnly(true))
	if err != nil {
		log.Fatal(err)
	}
	if err := gosdk.Install(s, p); err != nil {
		log.Fatal(err)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
