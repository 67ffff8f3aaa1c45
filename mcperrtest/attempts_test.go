package mcperrtest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// newReplicaServer returns a server that retries a read-only tool twice
// after a transient failure: "flaky" fails its first two calls, "down"
// every call, and "breaks" fails once, then panics with a secret. Its refs
// count up from 0000000000000001.
func newReplicaServer(t testing.TB, log *mcperrtest.Log) *mcp.Server {
	errBusy := errors.New("replica 10.0.0.7 busy")
	var n int
	pipeline, err := filter.New(filter.WithLogger(log.Logger()), filter.WithRetries(2),
		filter.WithRefGenerator(func() string { n++; return fmt.Sprintf("%016x", n) }),
		filter.WithFilters(filter.Is(errBusy, filter.Response{Code: codes.Unavailable, Message: "The replica is busy.", RetryAfter: time.Millisecond})))
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "replica", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, pipeline); err != nil {
		t.Fatal(err)
	}
	calls := 0
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	for name, fails := range map[string]int{"flaky": 2, "down": 1 << 30} {
		err := gosdk.AddTool(s, &mcp.Tool{Name: name, Annotations: readOnly}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			if calls++; calls <= fails {
				return nil, nil, errBusy
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	broken := false
	err = gosdk.AddTool(s, &mcp.Tool{Name: "breaks", Annotations: readOnly}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		if !broken {
			broken = true
			return nil, nil, errBusy
		}
		panic("dial 10.0.0.7:5432: password=hunter2")
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ExampleAssertAttempts() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		log := mcperrtest.NewLog(t)
		c := gosdktest.Connect(t, newReplicaServer(t, log))
		// Two failed attempts, retried on the server; the third succeeds.
		fmt.Println(mcperrtest.AssertAttempts(t, c.Call("flaky", struct{}{}), log, 3))
		// Three failed attempts: the last one is the answer.
		fmt.Println(mcperrtest.AssertAttempts(t, c.Call("down", struct{}{}), log, 2))
	})
	fmt.Println(t.Headline())
	// Output:
	// true
	// false
	// mcperrtest.AssertAttempts(2) failed:
	//   - the envelope's attempts is 3, want 2
	//   - 3 records name the ref "0000000000000002", want one for each of the 2 attempts
}

func TestAssertAttempts(t *testing.T) {
	f, ok := check(func(tb testing.TB) bool {
		log := mcperrtest.NewLog(tb)
		c := gosdktest.Connect(tb, newReplicaServer(tb, log))
		return mcperrtest.AssertAttempts(tb, c.Call("down", struct{}{}), log, 3) &&
			mcperrtest.AssertAttempts(tb, c.Call("flaky", struct{}{}), log, 1)
	})
	wantPass(t, f)
	if !ok {
		t.Error("AssertAttempts returned false on a pass")
	}
	f, _ = check(func(tb testing.TB) bool {
		log := mcperrtest.NewLog(tb)
		c := gosdktest.Connect(tb, newReplicaServer(tb, log))
		return mcperrtest.AssertAttempts(tb, c.Call("flaky", struct{}{}), log, 2)
	})
	wantFailure(t, f, "mcperrtest.AssertAttempts(2) failed", `2 records of failed attempts of tool "flaky", want 1`)
	f, _ = check(func(tb testing.TB) bool { return mcperrtest.AssertAttempts(tb, nil, nil, 1) })
	wantFailure(t, f, "no Log to count the attempts in")
}

// TestAssertMaskedRetried checks AssertMasked on a call retried once and
// then masked: its ref names one record for each attempt, and the secret
// of the last is in none of the answer.
func TestAssertMaskedRetried(t *testing.T) {
	f, ok := check(func(tb testing.TB) bool {
		log := mcperrtest.NewLog(tb)
		c := gosdktest.Connect(tb, newReplicaServer(tb, log))
		res := c.Call("breaks", struct{}{})
		return mcperrtest.AssertMasked(tb, res, log) != "" && mcperrtest.AssertAttempts(tb, res, log, 2)
	})
	wantPass(t, f)
	if !ok {
		t.Error("AssertMasked returned no ref on a pass")
	}
	f, _ = check(func(tb testing.TB) bool {
		log := mcperrtest.NewLog(tb)
		c := gosdktest.Connect(tb, newReplicaServer(tb, log))
		res := c.Call("breaks", struct{}{})
		res.Envelope.Attempts = 0 // as if the call had been made once
		return mcperrtest.AssertMasked(tb, res, log) != ""
	})
	wantFailure(t, f, "mcperrtest.AssertMasked failed", `ref 0000000000000001 is named by 2 log records, want exactly 1 (one for each attempt)`)
}
