// Package store is the server's data layer.
package store

import (
	"errors"
	"fmt"
)

// ErrConn says the database could not be reached.
var ErrConn = errors.New("the database could not be reached") // want: lost

// DB is a connection.
type DB struct {
	DSN string
}

// Query runs q.
func (db *DB) Query(q string) error {
	if q == "" {
		return nil
	}
	return fmt.Errorf("query on %s: %w", db.DSN, ErrConn)
}
