package filter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	crdb "github.com/cockroachdb/errors"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// stdoutLogger logs to standard output without the time, the stack and the
// request id minted for calls that carry none, which change from run to
// run, so examples can show the record.
func stdoutLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if (a.Key == slog.TimeKey || a.Key == "stack" || a.Key == "request_id") && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))
}

func fixedRef() string { return "4f9c2a7d1e0b3c58" }

// countingRefs returns a ref generator for examples that log more than one
// server error: a ref names one failure, so a generator must not repeat.
func countingRefs() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("ref-%d", n) }
}

func ExampleNew() {
	p, err := filter.New(filter.WithLogger(stdoutLogger()), filter.WithRefGenerator(fixedRef))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	call := filter.Call{Tool: "lookup"}

	// A failure the model should read: sent as written.
	fmt.Println(p.Handle(ctx, filter.Call{Tool: "divide"}, toolerr.New("b must not be zero.")).Envelope.Message)

	// Anything else: logged with a ref, masked for the client.
	f := p.Handle(ctx, call, errors.New("connection refused by 10.0.0.12:5432"))
	fmt.Println(f.Envelope.Message)
	// Output:
	// level=INFO msg="tool call failed" tool=divide code=TOOL_ERROR error="b must not be zero."
	// b must not be zero.
	// level=ERROR msg="tool call failed" tool=lookup code=INTERNAL_ERROR ref=4f9c2a7d1e0b3c58 error="connection refused by 10.0.0.12:5432"
	// Internal error in tool "lookup" (ref: 4f9c2a7d1e0b3c58).
}

func ExamplePipeline_Handle() {
	p, _ := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)))
	f := p.Handle(context.Background(), filter.Call{Tool: "get_user", RequestID: "req_xyz789"},
		fmt.Errorf("get user: %w", domain.NewNotFound("User", "usr_abc123")))
	fmt.Printf("%q\n", f.Texts)
	env := f.Envelope
	env.Timestamp = "2024-01-15T10:30:00Z" // the time of the failure, fixed here for the output
	b, _ := json.MarshalIndent(env, "", "  ")
	fmt.Println(string(b))
	// Output:
	// ["User not found: usr_abc123" "Code: NOT_FOUND\nDetails: {\"resourceId\":\"usr_abc123\",\"resourceType\":\"User\"}\nRetry: no, not with the same arguments."]
	// {
	//   "version": 1,
	//   "error": true,
	//   "code": "NOT_FOUND",
	//   "category": "client",
	//   "message": "User not found: usr_abc123",
	//   "details": {
	//     "resourceId": "usr_abc123",
	//     "resourceType": "User"
	//   },
	//   "retryable": false,
	//   "timestamp": "2024-01-15T10:30:00Z",
	//   "requestId": "req_xyz789"
	// }
}

// The order is the tool's own filters, then the global filters, then the
// built-in mapping; within each list the first is outermost. An adapter
// passes the filters given to a tool where it was registered as toolFilters.
func ExamplePipeline_Handle_order() {
	trace := func(name string) filter.Filter {
		return filter.Catch(func(_ context.Context, _ filter.Call, err error) (*filter.Response, error) {
			fmt.Println(name, "saw:", err)
			return nil, nil // pass on
		})
	}
	p, _ := filter.New(
		filter.WithLogger(slog.New(slog.DiscardHandler)),
		filter.WithFilters(trace("global 1"), trace("global 2")),
	)
	f := p.Handle(context.Background(), filter.Call{Tool: "transfer_funds"}, errors.New("boom"),
		trace("per-tool 1"), trace("per-tool 2"))
	fmt.Println("built-in mapping:", f.Envelope.Code)
	// Output:
	// per-tool 1 saw: boom
	// per-tool 2 saw: boom
	// global 1 saw: boom
	// global 2 saw: boom
	// built-in mapping: INTERNAL_ERROR
}

// A code the registry does not know is never sent: the client gets the
// fallback code, and the log gets one WARN record for the code.
func ExamplePipeline_Handle_unregisteredCode() {
	p, _ := filter.New(filter.WithLogger(stdoutLogger()))
	for range 2 {
		env := p.Handle(context.Background(), filter.Call{Tool: "pay"}, toolerr.New("Not enough money.").WithCode("NO_MONEY")).Envelope
		fmt.Println(env.Code, env.Retryable, env.Message)
	}
	// Output:
	// level=WARN msg="mcperr: unregistered error code" unregistered_code=NO_MONEY sent_as=TOOL_ERROR target=pay reason="the registry does not know it; register it with codes.NewRegistry and pass the registry to filter.WithRegistry"
	// level=INFO msg="tool call failed" tool=pay code=TOOL_ERROR error="Not enough money." unregistered_code=NO_MONEY
	// TOOL_ERROR false Not enough money.
	// level=INFO msg="tool call failed" tool=pay code=TOOL_ERROR error="Not enough money." unregistered_code=NO_MONEY
	// TOOL_ERROR false Not enough money.
}

// dbError stands for a driver's error type, such as *pgconn.PgError.
type dbError struct{ Code, Detail string }

func (e *dbError) Error() string { return "db: " + e.Code + ": " + e.Detail }

// A specialised filter handles its own kind of error and rethrows the rest.
func ExampleCatch() {
	database := filter.Catch(func(_ context.Context, _ filter.Call, e *dbError) (*filter.Response, error) {
		switch e.Code {
		case "23505": // unique_violation
			return &filter.Response{Code: codes.Conflict, Message: "A record with this value already exists."}, nil
		case "23503": // foreign_key_violation
			return nil, domain.NewNotFound("Referenced record", "") // transform, and let the mapping speak
		}
		return nil, nil // rethrow: the built-in mapping masks it
	})
	p, _ := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithFilters(database),
		filter.WithRefGenerator(countingRefs()))
	ctx, call := context.Background(), filter.Call{Tool: "create_user"}

	for _, err := range []error{
		fmt.Errorf("insert: %w", &dbError{"23505", "Key (email)=(ann@example.com) exists"}),
		&dbError{"23503", "Key (team_id)=(9) is not present"},
		&dbError{"53300", "too many connections for role app"},
		errors.New("not a database error"),
	} {
		env := p.Handle(ctx, call, err).Envelope
		fmt.Println(env.Code, env.Message)
	}
	// Output:
	// CONFLICT A record with this value already exists.
	// NOT_FOUND Referenced record not found.
	// INTERNAL_ERROR Internal error in tool "create_user" (ref: ref-1).
	// INTERNAL_ERROR Internal error in tool "create_user" (ref: ref-2).
}

func ExampleFunc() {
	insufficient := filter.Catch(func(_ context.Context, _ filter.Call, err error) (*filter.Response, error) {
		var br *domain.BusinessRule
		if errors.As(err, &br) && br.Rule == "INSUFFICIENT_FUNDS" {
			return &filter.Response{Code: br.Rule, Message: "Insufficient funds for transfer", Details: br.Context}, nil
		}
		return nil, nil
	})
	reg, _ := codes.NewRegistry(codes.Info{Code: "INSUFFICIENT_FUNDS", Category: codes.Business, Description: "The balance is too low."})
	p, _ := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithRegistry(reg), filter.WithFilters(insufficient))
	env := p.Handle(context.Background(), filter.Call{Tool: "transfer_funds"},
		domain.NewBusinessRule("INSUFFICIENT_FUNDS", "Available: 100, requested: 150", map[string]any{"available": 100.0, "requested": 150.0})).Envelope
	fmt.Println(env.Code, env.Message, string(env.Details))
	// Output: INSUFFICIENT_FUNDS Insufficient funds for transfer {"available":100,"requested":150}
}

// The text blocks the model reads, as the default renderer makes them: the
// message exactly as written, then what the model needs to act on it.
func ExampleFailure() {
	reg, _ := codes.NewRegistry(codes.Info{Code: "INSUFFICIENT_FUNDS", Category: codes.Business, Description: "The balance is too low."})
	p, _ := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithRegistry(reg))
	err := toolerr.New("Insufficient funds for this transfer.").
		WithCode("INSUFFICIENT_FUNDS").
		WithDetails(map[string]any{"available": 100, "requested": 250}).
		WithHint("Offer a transfer of at most 100.")
	for _, text := range p.Handle(context.Background(), filter.Call{Tool: "transfer_funds"}, err).Texts {
		fmt.Printf("[%s]\n", text)
	}
	// Output:
	// [Insufficient funds for this transfer.]
	// [Code: INSUFFICIENT_FUNDS
	// Details: {"available":100,"requested":250}
	// Retry: no, not with the same arguments.
	// Hint: Offer a transfer of at most 100.]
}

func ExampleWithRedaction() {
	p, _ := filter.New(filter.WithLogger(stdoutLogger()), filter.WithRefGenerator(fixedRef), filter.WithRedaction(true))
	p.Handle(context.Background(), filter.Call{Tool: "login"}, crdb.Newf("no account for %s", "ann@example.com"))
	// Output:
	// level=ERROR msg="tool call failed" tool=login code=INTERNAL_ERROR ref=4f9c2a7d1e0b3c58 error="no account for ‹×›" error_types="*withstack.withStack *errutil.leafError"
}

func ExampleWithRegistry() {
	reg, _ := codes.NewRegistry(codes.Info{Code: "INSUFFICIENT_FUNDS", Category: codes.Business, Description: "The balance is too low."})
	p, _ := filter.New(filter.WithRegistry(reg), filter.WithLogger(slog.New(slog.DiscardHandler)))
	env := p.Handle(context.Background(), filter.Call{Tool: "transfer_funds"},
		domain.NewBusinessRule("INSUFFICIENT_FUNDS", "Insufficient funds for transfer", map[string]any{"available": 100})).Envelope
	fmt.Println(env.Code, env.Category, env.Retryable, env.Message)
	// Output: INSUFFICIENT_FUNDS business false Insufficient funds for transfer
}

func ExampleWithFilters() {
	// A global filter that only observes passes every error on.
	var seen []string
	observe := filter.Catch(func(_ context.Context, call filter.Call, err error) (*filter.Response, error) {
		seen = append(seen, call.Tool+": "+err.Error())
		return nil, nil
	})
	p, _ := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithFilters(observe))
	f := p.Handle(context.Background(), filter.Call{Tool: "get_user"}, domain.NewNotFound("User", "u1"))
	fmt.Println(seen, f.Envelope.Code)
	// Output: [get_user: User not found: u1] NOT_FOUND
}

func ExampleWithLogger() {
	p, _ := filter.New(filter.WithLogger(stdoutLogger()), filter.WithRefGenerator(fixedRef))
	p.Handle(context.Background(), filter.Call{Tool: "update_order", SessionID: "s-1"},
		domain.NewValidation("status", "lost", "Must be one of: pending, shipped"))
	// Output:
	// level=INFO msg="tool call failed" tool=update_order code=VALIDATION_ERROR session_id=s-1 error="Validation failed for status: Must be one of: pending, shipped" fields.status.constraint="Must be one of: pending, shipped" fields.status.value=lost
}

func ExampleWithRefGenerator() {
	n := 0
	refs := func() string { n++; return fmt.Sprintf("test-ref-%d", n) }
	p, _ := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithRefGenerator(refs))
	fmt.Println(p.Handle(context.Background(), filter.Call{Tool: "a"}, errors.New("x")).Envelope.Message)
	fmt.Println(p.Handle(context.Background(), filter.Call{Tool: "b"}, errors.New("y")).Envelope.Message)
	// Output:
	// Internal error in tool "a" (ref: test-ref-1).
	// Internal error in tool "b" (ref: test-ref-2).
}

// A handler's panic reaches the pipeline as a *PanicError, which the
// adapters make where they recover it; an observer finds it with
// errors.As, its value and stack for the server only.
func ExamplePanicError() {
	report := func(_ context.Context, f filter.Failure) {
		var pe *filter.PanicError
		if errors.As(f.Err, &pe) {
			fmt.Println(pe.Value, len(pe.Stack) > 0, f.Envelope.Code)
		}
	}
	p, _ := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithObserver(report))
	panicked := &filter.PanicError{Value: "index out of range", Stack: debug.Stack()}
	p.Handle(context.Background(), filter.Call{Tool: "lookup"}, panicked)
	// Output: index out of range true INTERNAL_ERROR
}

// What the model reads for a failure whose code says it may be retried
// after a while: the message exactly, then the facts it needs to act.
func ExampleRenderForModel() {
	reg, _ := codes.NewRegistry(codes.Info{Code: "LEDGER_BUSY", Category: codes.Server, Description: "The ledger is busy.",
		Retryable: true, RetryAfter: 30 * time.Second})
	p, _ := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithRegistry(reg), filter.WithRefGenerator(fixedRef))
	f := p.Handle(context.Background(), filter.Call{Tool: "transfer_funds"},
		toolerr.New("The ledger is busy; the transfer was not made.").WithCode("LEDGER_BUSY"))
	for _, text := range filter.RenderForModel(f.Envelope) {
		fmt.Printf("[%s]\n", text)
	}
	// Output:
	// [The ledger is busy; the transfer was not made.]
	// [Code: LEDGER_BUSY
	// Retry: yes, after 30 seconds.
	// Ref: 4f9c2a7d1e0b3c58]
}

// An application can render failures its own way. The renderer sees only
// what may be sent, the envelope; one that fails is replaced by
// RenderForModel.
func ExampleWithRenderer() {
	compact := func(e filter.Envelope) []string {
		return []string{fmt.Sprintf("%s [%s, retryable=%t]", e.Message, e.Code, e.Retryable)}
	}
	p, _ := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithRenderer(compact))
	f := p.Handle(context.Background(), filter.Call{Tool: "get_order"}, domain.NewNotFound("Order", "ord_9"))
	fmt.Println(f.Texts)
	// Output: [Order not found: ord_9 [NOT_FOUND, retryable=false]]
}

// The envelope's JSON Schema is the contract a program can check
// envelopes against.
func ExampleEnvelopeSchema() {
	var schema struct {
		Title    string   `json:"title"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(filter.EnvelopeSchema(), &schema)
	fmt.Println(schema.Title)
	fmt.Println(schema.Required)
	// Output:
	// mcperr error envelope, version 1
	// [version error code category message retryable timestamp requestId]
}

// In report-only mode the pipeline decides what it would send and logs it,
// and the Failure says that it is not to be sent: the adapters then pass
// the handler's own answer on unchanged.
func ExampleWithReportOnly() {
	p, err := filter.New(filter.WithLogger(stdoutLogger()), filter.WithRefGenerator(fixedRef), filter.WithReportOnly(true))
	if err != nil {
		panic(err)
	}
	f := p.Handle(context.Background(), filter.Call{Tool: "lookup_order"}, errors.New("dial 10.0.0.5: password=hunter2 refused"))
	fmt.Println("report only:", f.ReportOnly)
	// Output:
	// level=ERROR msg="tool call failed" tool=lookup_order code=INTERNAL_ERROR ref=4f9c2a7d1e0b3c58 report_only=true masked=true would_send="Internal error in tool \"lookup_order\" (ref: 4f9c2a7d1e0b3c58)." error="dial 10.0.0.5: password=hunter2 refused"
	// report only: true
}

// The policy for error results that handlers build themselves is one of
// three constants; anything else is refused at start-up.
func ExampleWithHandBuilt() {
	if _, err := filter.New(filter.WithHandBuilt(filter.MaskHandBuilt)); err != nil {
		panic(err)
	}
	_, err := filter.New(filter.WithHandBuilt(filter.HandBuilt(5)))
	fmt.Println(err)
	// Output:
	// mcperr: INVALID_OPTION: WithHandBuilt needs filter.PassHandBuilt, filter.ReportHandBuilt or filter.MaskHandBuilt, not 5
}

// A sentinel error of the standard library or a driver maps to what the
// model should read in one line.
func ExampleIs() {
	p, err := filter.New(
		filter.WithLogger(stdoutLogger()),
		filter.WithFilters(filter.Is(fs.ErrNotExist, filter.Response{Code: codes.NotFound, Message: "No such report; list them with list_reports."})),
	)
	if err != nil {
		panic(err)
	}
	_, err = os.Open("/reports/2026-q3.pdf")
	f := p.Handle(context.Background(), filter.Call{Tool: "read_report"}, fmt.Errorf("read report: %w", err))
	fmt.Println(f.Envelope.Code, f.Envelope.Message)
	// Output:
	// level=INFO msg="tool call failed" tool=read_report code=NOT_FOUND error="read report: open /reports/2026-q3.pdf: no such file or directory"
	// NOT_FOUND No such report; list them with list_reports.
}

// A library's error about the model's own input is declared public in one
// line: the model reads the error's own words, not the wrapper's.
func ExamplePublic() {
	p, err := filter.New(
		filter.WithLogger(stdoutLogger()),
		filter.WithFilters(filter.Public[*strconv.NumError](codes.ValidationError)),
	)
	if err != nil {
		panic(err)
	}
	_, err = strconv.Atoi("12x")
	f := p.Handle(context.Background(), filter.Call{Tool: "get_page"}, fmt.Errorf("parse page of tenant acme: %w", err))
	fmt.Println(f.Envelope.Code, f.Envelope.Message)
	// Output:
	// level=INFO msg="tool call failed" tool=get_page code=VALIDATION_ERROR error="parse page of tenant acme: strconv.Atoi: parsing \"12x\": invalid syntax"
	// VALIDATION_ERROR strconv.Atoi: parsing "12x": invalid syntax
}

// A tool handler's own log lines carry the request id, the tool and the
// session, as the pipeline's record of a failure does: a log search for
// the id finds both.
func ExampleLogHandler() {
	handler := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			switch a.Key {
			case slog.TimeKey, "ref":
				return slog.Attr{}
			case "request_id":
				return slog.String("request_id", "R")
			}
			return a
		},
	})
	logger := slog.New(filter.LogHandler(handler))
	p, err := filter.New(filter.WithLogger(logger))
	if err != nil {
		panic(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		panic(err)
	}
	type args struct {
		ID string `json:"id"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "get_order"}, func(ctx context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		logger.InfoContext(ctx, "querying replica", "replica", "r2", "order", in.ID)
		return nil, nil, errors.New("replica r2: connection refused")
	})

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_order", Arguments: map[string]any{"id": "ord_1"}}); err != nil {
		panic(err)
	}
	// Output:
	// level=INFO msg="querying replica" replica=r2 order=ord_1 request_id=R tool=get_order
	// level=ERROR msg="tool call failed" tool=get_order code=INTERNAL_ERROR request_id=R error="replica r2: connection refused"
}

// The argument check is a server option: the adapters run it before each
// handler, and hand the pipeline a refusal as a *domain.Validation, which
// the filters see and the model reads without the refused value.
func ExampleWithArgumentCheck() {
	p, err := filter.New(filter.WithLogger(stdoutLogger()), filter.WithArgumentCheck(true))
	if err != nil {
		panic(err)
	}
	refusal := domain.NewValidation("b", nil, "is required")
	f := p.Handle(context.Background(), filter.Call{Tool: "divide"}, refusal)
	fmt.Println(f.Envelope.Code, f.Envelope.Message)
	// Output:
	// level=INFO msg="tool call failed" tool=divide code=VALIDATION_ERROR error="Validation failed for b: is required" fields.b.constraint="is required" fields.b.value=<nil>
	// VALIDATION_ERROR Validation failed for b: is required
}
