// Command errorsnew is the service layer of internal/testrig/weight/domain
// with the standard library's errors instead: the baseline of what a
// service layer pays for mcperr's domain package.
package main

import (
	"errors"
	"fmt"
	"os"
)

func findOrder(id string) error {
	if id != "ord_1" {
		return errors.New("order not found: " + id)
	}
	return nil
}

func main() {
	if err := findOrder(os.Args[len(os.Args)-1]); err != nil {
		fmt.Println(err)
	}
}
