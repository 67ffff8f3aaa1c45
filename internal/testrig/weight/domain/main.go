// Command domain is a service layer that returns mcperr's domain errors
// and imports nothing else of mcperr: what such a layer pays for them is
// its size over internal/testrig/weight/errorsnew.
package main

import (
	"fmt"
	"os"

	"github.com/mcperr/mcperr/domain"
)

func findOrder(id string) error {
	if id != "ord_1" {
		return domain.NewNotFound("Order", id)
	}
	return nil
}

func main() {
	if err := findOrder(os.Args[len(os.Args)-1]); err != nil {
		fmt.Println(err)
	}
}
