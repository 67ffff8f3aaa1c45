// Package publictext holds positive and negative cases of mcperrpublictext.
package publictext

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"example.com/vettest/argmsgs"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// --- positives ---

func direct(err error) error {
	return toolerr.New(err.Error()) // want `toolerr.New message is built from an error's text`
}

func sprintfV(err error) error {
	return toolerr.New(fmt.Sprintf("lookup failed: %v", err)) // want `toolerr.New message is built from an error's text`
}

func sprintfS(err error) error {
	return toolerr.New(fmt.Sprintf("lookup failed: %s", err)) // want `toolerr.New message`
}

func sprintQ(err error) error {
	return toolerr.New(fmt.Sprintf("lookup failed: %q", err)) // want `toolerr.New message`
}

func sprint(err error) error {
	return toolerr.New(fmt.Sprint("lookup failed: ", err)) // want `toolerr.New message`
}

func viaVariable(err error) error {
	msg := err.Error()
	return toolerr.New(msg) // want `toolerr.New message`
}

func viaReassignedVariable(err error, verbose bool) error {
	msg := "lookup failed"
	if verbose {
		msg = err.Error()
	}
	return toolerr.New(msg) // want `toolerr.New message`
}

func joined(a, b error) error {
	return toolerr.New(errors.Join(a, b).Error()) // want `toolerr.New message`
}

func concat(err error) error {
	return toolerr.New("lookup failed: " + err.Error()) // want `toolerr.New message`
}

func errorfError(err error) error {
	return toolerr.New(fmt.Errorf("lookup: %w", err).Error()) // want `toolerr.New message`
}

func errorfDigit(err error) error {
	return toolerr.New(fmt.Errorf("lookup %d: %v", 7, err).Error()) // want `toolerr.New message`
}

func describe(err error) string { return "failed: " + err.Error() }

func viaHelper(err error) error {
	return toolerr.New(describe(err)) // want `toolerr.New message`
}

func sprintfHelper(op string, err error) string { return fmt.Sprintf("%s: %v", op, err) }

func viaSprintfHelper(err error) error {
	return toolerr.New(sprintfHelper("lookup", err)) // want `toolerr.New message`
}

func wrapText(s string) string { return "[" + strings.TrimSpace(s) + "]" }

func viaStringHelper(err error) error {
	return toolerr.New(wrapText(err.Error())) // want `toolerr.New message`
}

func stringsJoin(a, b error) error {
	return toolerr.New(strings.Join([]string{"failed", a.Error(), b.Error()}, ": ")) // want `toolerr.New message`
}

func stringsFuncs(err error) error {
	return toolerr.New(strings.ToUpper(strings.TrimPrefix(err.Error(), "x"))) // want `toolerr.New message`
}

func toolErrorCauseText(err error) error {
	te := toolerr.New("The lookup failed.").WithCause(err)
	return toolerr.New("failed: " + te.Error()) // want `toolerr.New message`
}

func hint(err error) error {
	return toolerr.New("The lookup failed.").WithCause(err).WithHint(err.Error()) // want `ToolError.WithHint hint is built from an error's text`
}

func details(err error) error {
	return toolerr.New("The lookup failed.").WithDetails(map[string]any{"cause": err.Error()}) // want `ToolError.WithDetails details hold an error's text`
}

func detailsError(err error) error {
	return toolerr.New("The lookup failed.").WithDetails(map[string]any{"cause": fmt.Sprint(err)}) // want `ToolError.WithDetails details`
}

func permissionHint(a *domain.Authorization) error {
	return toolerr.New("Access denied.").WithHint("ask for " + a.Permission) // want `ToolError.WithHint hint`
}

func businessRule(err error) error {
	return domain.NewBusinessRule("ORDER_LOCKED", "The order is locked.", map[string]any{"x": err.Error()}) // want `domain.NewBusinessRule context holds an error's text`
}

func businessRuleMessage(err error) error {
	return domain.NewBusinessRule("ORDER_LOCKED", "locked: "+err.Error(), nil) // want `domain.NewBusinessRule message is built from an error's text`
}

func responseMessage(_ context.Context, _ filter.Call, err error) (*filter.Response, error) {
	return &filter.Response{Code: codes.ToolFailed, Message: "failed: " + err.Error()}, nil // want `filter.Response.Message is built from an error's text`
}

func responseDetails(_ context.Context, _ filter.Call, err error) (*filter.Response, error) {
	return &filter.Response{Code: codes.ToolFailed, Message: "The call failed.", Details: map[string]any{"cause": err.Error()}}, nil // want `filter.Response.Details is built`
}

func responseAssigned(_ context.Context, _ filter.Call, err error) (*filter.Response, error) {
	r := &filter.Response{Code: codes.ToolFailed, Message: "The call failed."}
	r.Message = fmt.Sprintf("failed: %v", err) // want `filter.Response.Message is built`
	return r, nil
}

var _ = filter.Catch(func(_ context.Context, _ filter.Call, err *domain.Authorization) (*filter.Response, error) {
	return &filter.Response{Code: codes.Forbidden, Message: "You may not do this.", Hints: []string{"Ask for " + err.Permission}}, nil // want `filter.Response.Hints is built`
})

// --- negatives ---

func constant(err error) error {
	return toolerr.New("The lookup failed; try again shortly.").WithCause(err)
}

func userID(id string, order int, err error) error {
	return toolerr.New(fmt.Sprintf("Order %d of user %s could not be loaded.", order, id)).WithCause(err)
}

func isAs(err error) error {
	var nf *domain.NotFound
	if errors.Is(err, context.Canceled) || errors.As(err, &nf) {
		return toolerr.New("Not found.").WithCause(err)
	}
	return err
}

func publicMessage(err error) error {
	var pe toolerr.PublicError
	if errors.As(err, &pe) {
		return toolerr.New(pe.PublicMessage()).WithCause(err)
	}
	if p, ok := err.(toolerr.PublicError); ok {
		return toolerr.New(p.PublicMessage())
	}
	return nil
}

func toolErrorPublicMessage(te *toolerr.ToolError, nf *domain.NotFound) error {
	return toolerr.New(te.PublicMessage() + " " + nf.PublicMessage())
}

func nilCheck(err error) error {
	if err == nil {
		return nil
	}
	return toolerr.New("failed").WithCause(err)
}

func logged(ctx context.Context, err error) error {
	slog.ErrorContext(ctx, "lookup failed", "err", err.Error())
	msg := err.Error()
	slog.Info(msg)
	return toolerr.New("The lookup failed.").WithCause(err)
}

func constError() error {
	return toolerr.New(errors.New("constant text").Error())
}

func constErrorf(id string) error {
	return toolerr.New(fmt.Errorf("order %s was not found", id).Error())
}

func toolErrorText(id string) error {
	te := toolerr.New("Order " + id + " is locked.").WithHint("Unlock it first.")
	return toolerr.New(te.Error())
}

func cleanHelper(id string) string { return "order " + id }

func viaCleanHelper(id string, err error) error {
	return toolerr.New(cleanHelper(id)).WithCause(err)
}

func errHelper(err error) string { return "failed" }

func viaIgnoringHelper(err error) error {
	return toolerr.New(errHelper(err)).WithCause(err)
}

func cleanDetails(id string, err error) error {
	return toolerr.New("failed").WithCause(err).WithDetails(map[string]any{"order": id}).WithHint("Check the order id.")
}

func cleanResponse(_ context.Context, _ filter.Call, err error) (*filter.Response, error) {
	return &filter.Response{Code: codes.ToolFailed, Message: "The call failed.", Hints: []string{"Try again."}}, nil
}

func cleanBusinessRule(id string) error {
	return domain.NewBusinessRule("ORDER_LOCKED", "The order is locked.", map[string]any{"order": id})
}

func subjectLogged(a *domain.Authorization) error {
	slog.Info("denied", "permission", a.Permission)
	return toolerr.New("Access denied.").WithCause(a)
}

// A handler written as a function literal.
func handlerLiteral() func(context.Context, string) error {
	return func(ctx context.Context, id string) error {
		if err := lookupOrder(ctx, id); err != nil {
			return toolerr.New("lookup " + id + ": " + err.Error()) // want `toolerr.New message`
		}
		return nil
	}
}

// lookupOrder stands for a lookup whose errors are a library's.
var lookupOrder func(context.Context, string) error

// A helper that builds the ToolError from its arguments.
func fail(msg string, err error) error { return toolerr.New(msg).WithCause(err) }

func viaFailHelper(err error) error {
	return fail("lookup failed: "+err.Error(), err) // want `through fail: toolerr.New message is built from an error's text`
}

func viaFailHelperClean(id string, err error) error {
	return fail("Order "+id+" could not be loaded.", err)
}

func failWithHint(hint string) error { return toolerr.New("The lookup failed.").WithHint(hint) }

func viaHintHelper(err error) error {
	return failWithHint(err.Error()) // want `through failWithHint: ToolError.WithHint hint`
}

// A message of another package of the module, made of the tool's own
// words, formatted into a ToolError's message: the module wrote all of it.
func requiredElsewhere(name string) error {
	return toolerr.New(fmt.Sprintf("invalid input: %v", argmsgs.Required(name)))
}

// The same function given an error's text, or wrapping an error: its
// errors hold that text.
func requiredOfErrorText(err error) error {
	return toolerr.New(fmt.Sprintf("invalid input: %v", argmsgs.Required(err.Error()))) // want `toolerr.New message`
}

func wrappedElsewhere(err error) error {
	return toolerr.New(fmt.Sprintf("invalid input: %v", argmsgs.Wrap(err))) // want `toolerr.New message`
}
