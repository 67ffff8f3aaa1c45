package main

import (
	"context"
	"fmt"
	"sync"
)

// DBError is the error type of the in-memory database, shaped like a SQL
// driver's: a machine code and a detail that may hold personal data.
type DBError struct {
	Code   string // "unique_violation", "foreign_key_violation", "connection_failure"
	Detail string
}

func (e *DBError) Error() string { return fmt.Sprintf("db: %s: %s", e.Code, e.Detail) }

// User is a customer.
type User struct {
	ID     string `json:"id"`
	Email  string `json:"email"`
	TeamID string `json:"teamId"`
}

// Order is a customer's order.
type Order struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// Account holds money.
type Account struct {
	ID      string  `json:"id"`
	Balance float64 `json:"balance"`
}

// Store is an in-memory database with the constraints of a real one.
type Store struct {
	mu       sync.Mutex
	teams    map[string]bool
	users    map[string]User
	orders   map[string]Order
	accounts map[string]Account
	down     bool
}

// NewStore returns a store with a few rows.
func NewStore() *Store {
	return &Store{
		teams:    map[string]bool{"team_1": true},
		users:    map[string]User{"usr_1": {ID: "usr_1", Email: "ann@example.com", TeamID: "team_1"}},
		orders:   map[string]Order{"ord_1": {ID: "ord_1", Status: "pending"}, "ord_2": {ID: "ord_2", Status: "delivered"}},
		accounts: map[string]Account{"acc_1": {ID: "acc_1", Balance: 100}, "acc_2": {ID: "acc_2", Balance: 5}},
	}
}

// User returns a user, or ok false.
func (s *Store) User(_ context.Context, id string) (User, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return User{}, false, &DBError{Code: "connection_failure", Detail: "dial tcp 10.0.0.12:5432: connection refused (user=app password=hunter2)"}
	}
	u, ok := s.users[id]
	return u, ok, nil
}

// InsertUser adds a user, enforcing a unique email and an existing team.
func (s *Store) InsertUser(_ context.Context, u User) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, other := range s.users {
		if other.Email == u.Email {
			return &DBError{Code: "unique_violation", Detail: fmt.Sprintf("Key (email)=(%s) already exists.", u.Email)}
		}
	}
	if !s.teams[u.TeamID] {
		return &DBError{Code: "foreign_key_violation", Detail: fmt.Sprintf("Key (team_id)=(%s) is not present in table \"teams\".", u.TeamID)}
	}
	s.users[u.ID] = u
	return nil
}

// Order returns an order, or ok false.
func (s *Store) Order(_ context.Context, id string) (Order, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[id]
	return o, ok
}

// SetOrderStatus changes an order's status.
func (s *Store) SetOrderStatus(_ context.Context, id, status string) Order {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.orders[id]
	o.Status = status
	s.orders[id] = o
	return o
}

// Account returns an account, or ok false.
func (s *Store) Account(_ context.Context, id string) (Account, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.accounts[id]
	return a, ok
}

// Transfer moves money between two accounts.
func (s *Store) Transfer(_ context.Context, from, to string, amount float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, t := s.accounts[from], s.accounts[to]
	f.Balance -= amount
	t.Balance += amount
	s.accounts[from], s.accounts[to] = f, t
}

// GoDown makes every later user query fail like a lost connection.
func (s *Store) GoDown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = true
}
