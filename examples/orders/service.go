package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
)

// InsufficientFunds is this application's own error code.
const InsufficientFunds codes.Code = "INSUFFICIENT_FUNDS"

// OrderAlreadyDelivered is the rule a delivered order's status obeys.
const OrderAlreadyDelivered codes.Code = "ORDER_ALREADY_DELIVERED"

// appCodes are the codes this application registers at start-up.
var appCodes = []codes.Info{
	{Code: InsufficientFunds, Category: codes.Business, Description: "The source account's balance is lower than the amount."},
	{Code: OrderAlreadyDelivered, Category: codes.Business, Description: "A delivered order's status cannot change."},
}

var validStatuses = []string{"pending", "processing", "shipped", "delivered"}

// Service is the business layer. It knows nothing of MCP: it returns the
// domain errors of mcperr/domain and its store's errors.
type Service struct {
	store *Store
}

// GetUser returns a user.
func (s *Service) GetUser(ctx context.Context, id string) (User, error) {
	u, ok, err := s.store.User(ctx, id)
	if err != nil {
		return User{}, fmt.Errorf("load user %s: %w", id, err)
	}
	if !ok {
		return User{}, domain.NewNotFound("User", id)
	}
	return u, nil
}

// CreateUser adds a user.
func (s *Service) CreateUser(ctx context.Context, u User) (User, error) {
	if !strings.Contains(u.Email, "@") {
		return User{}, domain.NewValidation("email", u.Email, "Must be a valid email address")
	}
	if err := s.store.InsertUser(ctx, u); err != nil {
		return User{}, fmt.Errorf("insert user: %w", err)
	}
	return u, nil
}

// UpdateOrder changes an order's status.
func (s *Service) UpdateOrder(ctx context.Context, id, status string) (Order, error) {
	o, ok := s.store.Order(ctx, id)
	if !ok {
		return Order{}, domain.NewNotFound("Order", id)
	}
	if !slices.Contains(validStatuses, status) {
		return Order{}, domain.NewValidation("status", status, "Must be one of: "+strings.Join(validStatuses, ", "))
	}
	if o.Status == "delivered" && status != "delivered" {
		return Order{}, domain.NewBusinessRule(OrderAlreadyDelivered, "Cannot change status of a delivered order",
			map[string]any{"orderId": o.ID, "currentStatus": o.Status})
	}
	return s.store.SetOrderStatus(ctx, id, status), nil
}

// TransferFunds moves money between accounts.
func (s *Service) TransferFunds(ctx context.Context, from, to string, amount float64) error {
	src, ok := s.store.Account(ctx, from)
	if !ok {
		return domain.NewNotFound("Account", from)
	}
	if _, ok := s.store.Account(ctx, to); !ok {
		return domain.NewNotFound("Account", to)
	}
	if src.Balance < amount {
		return domain.NewBusinessRule(InsufficientFunds, fmt.Sprintf("Insufficient funds. Available: %.2f, Requested: %.2f", src.Balance, amount),
			map[string]any{"available": src.Balance, "requested": amount})
	}
	s.store.Transfer(ctx, from, to, amount)
	return nil
}
