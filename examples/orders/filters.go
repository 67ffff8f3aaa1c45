package main

import (
	"context"
	"sync"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
)

// databaseFilter handles the database's constraint violations, which a model
// can act on, and rethrows every other database error, which the built-in
// mapping masks.
var databaseFilter = filter.Catch(func(_ context.Context, _ filter.Call, e *DBError) (*filter.Response, error) {
	switch e.Code {
	case "unique_violation":
		return &filter.Response{Code: codes.Conflict, Message: "A record with this value already exists."}, nil
	case "foreign_key_violation":
		return &filter.Response{Code: codes.NotFound, Message: "Referenced record does not exist."}, nil
	}
	return nil, nil // rethrow: a lost connection is an internal error
})

// insufficientFundsFilter is bound to transfer_funds: it answers an
// INSUFFICIENT_FUNDS refusal in the shape the finance team agreed on, with
// advice the model can follow.
var insufficientFundsFilter = filter.Catch(func(_ context.Context, _ filter.Call, e *domain.BusinessRule) (*filter.Response, error) {
	if e.Rule != InsufficientFunds {
		return nil, nil
	}
	return &filter.Response{
		Code:    InsufficientFunds,
		Message: "Insufficient funds for transfer",
		Details: e.Context,
		Hints:   []string{"Transfer at most the available amount, or choose another source account."},
	}, nil
})

// failureCounter is a global filter that only observes: it counts failures
// by tool and passes every error on.
type failureCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

// Catch counts the failure and passes it on.
func (c *failureCounter) Catch(_ context.Context, call filter.Call, err error) (*filter.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	c.counts[call.Tool]++
	return nil, nil
}

// Count returns the failures counted for tool.
func (c *failureCounter) Count(tool string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[tool]
}

var _ filter.Filter = (*failureCounter)(nil)
