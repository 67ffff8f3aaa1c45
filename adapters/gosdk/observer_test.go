package gosdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

// scribble writes over everything a Failure holds, through every slice it
// shares: the text blocks, the details' bytes, the hints.
func scribble(f *filter.Failure) {
	f.Call = filter.Call{Tool: "scribbled", RequestID: "scribbled"}
	for i := range f.Texts {
		f.Texts[i] = "scribbled"
	}
	scribbleEnvelope(&f.Envelope)
	f.JSONRPCCode = 1
	f.Err = errors.New("scribbled")
	f.ErrorText = "scribbled"
}

// scribbleEnvelope writes over every field of e, and through every slice
// it shares.
func scribbleEnvelope(e *filter.Envelope) {
	for i := range e.Details {
		e.Details[i] = ' '
	}
	for i := range e.Hints {
		e.Hints[i] = "scribbled"
	}
	*e = filter.Envelope{URI: "scribbled://", Version: 9, Code: "SCRIBBLED", Category: codes.Server, Message: "scribbled",
		Details: e.Details, Hints: e.Hints, Retryable: !e.Retryable, RetryAfterSeconds: 99, DocURL: "https://scribbled.example",
		Timestamp: "scribbled", RequestID: "scribbled", Ref: "scribbled"}
}

// TestExtensionPointsGetCopies checks, end to end on this SDK, that an
// Observer, and a Renderer once it has rendered, that write to what they
// were given change nothing the client receives, nor the log record: for
// tools added every way, and for a resource and a prompt.
func TestExtensionPointsGetCopies(t *testing.T) {
	variants := []copiesVariant{
		{"Observer", []filter.Option{filter.WithObserver(func(_ context.Context, f filter.Failure) { scribble(&f) })}},
		{"Renderer", []filter.Option{filter.WithRenderer(func(e filter.Envelope) []string {
			texts := filter.RenderForModel(e)
			scribbleEnvelope(&e)
			return texts
		})}},
	}
	baseline := copiesVariant{"none", nil}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			want, wantLog := copiesRun(t, baseline)
			got, gotLog := copiesRun(t, v)
			if len(got) != len(want) {
				t.Fatalf("%d answers, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("answer %d with the %s that writes:\n%s\nwithout:\n%s", i, v.name, got[i], want[i])
				}
			}
			if fmt.Sprint(gotLog) != fmt.Sprint(wantLog) {
				t.Errorf("records with the %s that writes:\n%v\nwithout:\n%v", v.name, gotLog, wantLog)
			}
		})
	}
}

// copiesVariant is a pipeline's extension points, named.
type copiesVariant struct {
	name string
	opts []filter.Option
}

// copiesRun calls failing tools, a resource and a prompt on a server
// whose pipeline has opts and a fixed ref, and returns what the client
// received for each, its times and request ids as placeholders, and the
// log records without their times and request ids.
func copiesRun(t *testing.T, v copiesVariant) (answers []string, records []map[string]any) {
	t.Helper()
	var log adaptertest.Log
	p, err := filter.New(append([]filter.Option{filter.WithLogger(log.Logger()), filter.WithRegistry(adaptertest.Registry()),
		filter.WithRefGenerator(func() string { return "0123456789abcdef" })}, v.opts...)...)
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "copies", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	coded := toolerr.New("Not enough stock for 3 units.").WithCode("INVENTORY_EXHAUSTED").
		WithDetails(map[string]any{"available": 2, "sku": "A-1"}).WithHint("Order at most 2.")
	fails := map[string]behaviour{
		"coded": func(context.Context) error { return coded },
		"invalid": func(context.Context) error {
			return domain.NewValidation("status", "x", "Must be one of: pending, shipped")
		},
		"masked": func(context.Context) error { return errors.New("db down") },
		"panics": func(context.Context) error { panic("boom") },
	}
	var tools []string
	for _, e := range entries {
		for _, name := range []string{"coded", "invalid", "masked", "panics"} {
			tool := e.name + "." + name
			e.add(t, s, tool, fails[name])
			tools = append(tools, tool)
		}
	}
	s.AddResource(&mcp.Resource{URI: "file:///stock.txt", Name: "stock"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, coded
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "orders://{id}", Name: "order"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, domain.NewNotFound("Order", "ord_404")
	})
	s.AddPrompt(&mcp.Prompt{Name: "restock"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, coded
	})
	cs := connect(t, s, "")
	ctx := context.Background()
	for _, tool := range tools {
		r, _ := call(ctx, cs, adaptertest.Case{Tool: tool})
		if r.ProtocolErr != nil || !r.IsError {
			t.Fatalf("%s: got %s %v, want an error result", tool, r.Raw, r.ProtocolErr)
		}
		answers = append(answers, exampleStable(string(r.Raw)))
	}
	rpcAnswer := func(what string, err error) {
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			t.Fatalf("%s: got %v, want a JSON-RPC error", what, err)
		}
		b, _ := json.Marshal(we)
		answers = append(answers, exampleStable(string(b)))
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///stock.txt"})
	rpcAnswer("resource", err)
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "orders://ord_404"})
	rpcAnswer("template", err)
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "restock"})
	rpcAnswer("prompt", err)

	for _, rec := range log.Records(t) {
		delete(rec, "time")
		delete(rec, "request_id")
		delete(rec, "stack") // its addresses differ from run to run
		records = append(records, rec)
	}
	if n := len(tools) + 3; len(records) != n {
		t.Fatalf("%d records, want %d", len(records), n)
	}
	for i, a := range answers {
		if bytes.Contains([]byte(a), []byte("scribbled")) {
			t.Errorf("answer %d holds what an extension point wrote: %s", i, a)
		}
	}
	return answers, records
}
