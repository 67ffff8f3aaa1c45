// Package throughput measures what mcperr costs a server over the network:
// calls per second, latency percentiles, CPU time, allocations and bytes on
// the wire of tool calls over streamable HTTP on 127.0.0.1, made by each
// SDK's own Go client against a server with and without mcperr installed.
//
// A [Rig] is one server (go-sdk or mcp-go, bare or with mcperr) listening
// on 127.0.0.1 with N client sessions connected to it. [Rig.Window] drives
// the sessions as fast as they go for a while and reports a [Result].
// [Run] is the one-shot form: start a rig, run one window, stop it.
//
// The benchmark in this package alternates windows of a bare server and of
// the same server with mcperr, for every SDK, workload and concurrency, and
// reports medians of the windows and the ratio mcperr/bare of calls per
// second:
//
//	go test -run='^$' -bench=Throughput -benchtime=1x ./internal/testrig/throughput
//
// A plain go test runs only a short smoke test.
package throughput

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/filter"
)

// SDK names the MCP SDK a rig serves and calls with.
type SDK string

// The SDKs.
const (
	GoSDK SDK = "go-sdk"
	MCPGo SDK = "mcp-go"
)

// Workload names what the called tool does.
type Workload string

// The workloads. Each is a tool of the same server.
const (
	// Success returns a small text result.
	Success Workload = "success"
	// ToolError fails with words for the model: toolerr.New with mcperr,
	// the SDK's own error result with the same text when bare.
	ToolError Workload = "toolerror"
	// Masked returns an internal error whose text holds a secret: the bare
	// SDK sends it as it is, mcperr masks it.
	Masked Workload = "masked"
	// Panic10 panics on every tenth call of the server and succeeds
	// otherwise. The bare go-sdk server recovers in a minimal receiving
	// middleware, the bare mcp-go server with server.WithRecovery.
	Panic10 Workload = "panic10"
)

// Workloads lists the workloads in the order they are reported.
var Workloads = []Workload{Success, ToolError, Masked, Panic10}

// The texts the tools answer with.
const (
	SuccessText   = "Order ord_1 shipped."
	ToolErrorText = "Not enough stock for order ord_1."
	SecretText    = "dial 10.0.0.5: password=hunter2 refused"
)

// Config says what to measure.
type Config struct {
	SDK      SDK
	Workload Workload
	// Mcperr installs mcperr on the server, with a pipeline that logs to
	// io.Discard through a JSON slog handler.
	Mcperr bool
	// Shape, on a bare server and the ToolError or Masked workload, calls
	// the tool that answers the workload's failure in that shape, built by
	// the handler.
	Shape Shape
	// Sessions is the number of client sessions, each calling in a loop on
	// its own goroutine. Zero means one.
	Sessions int
	// Duration is how long Run drives the calls. Zero means 200 ms.
	Duration time.Duration
	// Capture keeps the response bodies the server wrote (up to 1 MiB) in
	// Result.Wire.
	Capture bool
}

// Result is what one window measured. Allocations and CPU time are of the
// whole process: client and server alike.
type Result struct {
	Calls    int
	Failures int // calls whose result was an error result or a protocol error
	Elapsed  time.Duration
	P50, P99 time.Duration
	// CPUPerCall is user and system CPU time of the process per call.
	CPUPerCall time.Duration
	// AllocsPerCall is heap allocations (runtime.MemStats.Mallocs) per call.
	AllocsPerCall float64
	// WireBytesPerCall is response body bytes the server wrote per call.
	WireBytesPerCall float64
	// Sample is what the client saw of one failed call: the text blocks of
	// an error result, or the error of a protocol error.
	Sample string
	// Wire holds the response bodies when Config.Capture is set.
	Wire []byte
}

// CallsPerSecond is Calls over Elapsed.
func (r Result) CallsPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Calls) / r.Elapsed.Seconds()
}

// Run starts a rig for cfg, runs one window of cfg.Duration and stops it.
func Run(cfg Config) (Result, error) {
	r, err := Start(cfg)
	if err != nil {
		return Result{}, err
	}
	defer r.Close()
	return r.Window(cfg.Duration), nil
}

// Rig is a server listening on 127.0.0.1 and client sessions connected to
// it.
type Rig struct {
	cfg     Config
	srv     *httptest.Server
	counter *countingHandler
	hc      *http.Client
	calls   []func(context.Context) (failed bool, sample string, err error)
	closers []func()
}

// Start starts the server of cfg and connects cfg.Sessions sessions to it.
func Start(cfg Config) (*Rig, error) {
	if cfg.Sessions <= 0 {
		cfg.Sessions = 1
	}
	p, err := filter.New(filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
	if err != nil {
		return nil, err
	}
	var h http.Handler
	switch cfg.SDK {
	case GoSDK:
		h, err = goSDKServer(cfg, p)
	case MCPGo:
		h, err = mcpGoServer(cfg, p)
	default:
		err = fmt.Errorf("unknown SDK %q", cfg.SDK)
	}
	if err != nil {
		return nil, err
	}
	r := &Rig{cfg: cfg, counter: &countingHandler{next: h}}
	r.srv = httptest.NewServer(r.counter)
	// One transport for all sessions, keeping a connection per session
	// alive between calls, as a long-lived client would.
	r.hc = &http.Client{Transport: &http.Transport{
		MaxIdleConns:        4 * cfg.Sessions,
		MaxIdleConnsPerHost: 4 * cfg.Sessions,
		IdleConnTimeout:     time.Minute,
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range cfg.Sessions {
		if err := r.connect(ctx); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// Close closes the sessions and the server.
func (r *Rig) Close() {
	for _, c := range slices.Backward(r.closers) {
		c()
	}
	r.closers = nil
	r.srv.CloseClientConnections()
	r.srv.Close()
	r.hc.CloseIdleConnections()
}

// URL is the endpoint of the server.
func (r *Rig) URL() string { return r.srv.URL }

func (r *Rig) connect(ctx context.Context) error {
	switch r.cfg.SDK {
	case GoSDK:
		c := mcp.NewClient(&mcp.Implementation{Name: "throughput", Version: "1.0.0"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.srv.URL, HTTPClient: r.hc}, nil)
		if err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		r.closers = append(r.closers, func() { _ = cs.Close() })
		params := &mcp.CallToolParams{Name: shapedTool(r.cfg.Workload, r.cfg.Shape), Arguments: map[string]any{"id": "ord_1"}}
		r.calls = append(r.calls, func(ctx context.Context) (bool, string, error) {
			res, err := cs.CallTool(ctx, params)
			if err != nil {
				return true, err.Error(), nil
			}
			if res.IsError {
				return true, goSDKText(res), nil
			}
			return false, "", nil
		})
	case MCPGo:
		c, err := mcpgoclient.NewStreamableHttpClient(r.srv.URL, mcpgotransport.WithHTTPBasicClient(r.hc))
		if err != nil {
			return err
		}
		if err := c.Start(ctx); err != nil {
			return fmt.Errorf("start: %w", err)
		}
		r.closers = append(r.closers, func() { _ = c.Close() })
		init := mcpgomcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcpgomcp.LATEST_PROTOCOL_VERSION
		init.Params.ClientInfo = mcpgomcp.Implementation{Name: "throughput", Version: "1.0.0"}
		if _, err := c.Initialize(ctx, init); err != nil {
			return fmt.Errorf("initialize: %w", err)
		}
		req := mcpgomcp.CallToolRequest{}
		req.Params.Name = shapedTool(r.cfg.Workload, r.cfg.Shape)
		req.Params.Arguments = map[string]any{"id": "ord_1"}
		r.calls = append(r.calls, func(ctx context.Context) (bool, string, error) {
			res, err := c.CallTool(ctx, req)
			if err != nil {
				return true, err.Error(), nil
			}
			if res.IsError {
				return true, mcpGoText(res), nil
			}
			return false, "", nil
		})
	}
	return nil
}

// Window drives every session in a loop for d (200 ms if zero) and reports
// what it measured.
func (r *Rig) Window(d time.Duration) Result {
	if d <= 0 {
		d = 200 * time.Millisecond
	}
	r.counter.reset(r.cfg.Capture)
	runtime.GC()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := cpuTime()
	start := time.Now()
	deadline := start.Add(d)

	type worker struct {
		lat      []time.Duration
		failures int
		sample   string
	}
	workers := make([]worker, len(r.calls))
	var wg sync.WaitGroup
	ctx := context.Background()
	for i, call := range r.calls {
		w := &workers[i]
		w.lat = make([]time.Duration, 0, 4096)
		wg.Go(func() {
			for {
				t0 := time.Now()
				if !t0.Before(deadline) {
					return
				}
				failed, sample, _ := call(ctx)
				w.lat = append(w.lat, time.Since(t0))
				if failed {
					w.failures++
					if w.sample == "" {
						w.sample = sample
					}
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1 := cpuTime()
	runtime.ReadMemStats(&ms1)

	var res Result
	var lat []time.Duration
	for _, w := range workers {
		lat = append(lat, w.lat...)
		res.Failures += w.failures
		if res.Sample == "" {
			res.Sample = w.sample
		}
	}
	slices.Sort(lat)
	res.Calls = len(lat)
	res.Elapsed = elapsed
	bytes, wire := r.counter.snapshot()
	res.Wire = wire
	if res.Calls > 0 {
		n := float64(res.Calls)
		res.P50 = lat[(len(lat)-1)*50/100]
		res.P99 = lat[(len(lat)-1)*99/100]
		res.CPUPerCall = time.Duration(float64(cpu1-cpu0) / n)
		res.AllocsPerCall = float64(ms1.Mallocs-ms0.Mallocs) / n
		res.WireBytesPerCall = float64(bytes) / n
	}
	return res
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// countingHandler counts the response body bytes of the handler it wraps.
type countingHandler struct {
	next    http.Handler
	bytes   atomic.Int64
	capture atomic.Bool
	mu      sync.Mutex
	wire    []byte
}

const maxCapture = 1 << 20

func (c *countingHandler) reset(capture bool) {
	c.bytes.Store(0)
	c.capture.Store(capture)
	c.mu.Lock()
	c.wire = nil
	c.mu.Unlock()
}

func (c *countingHandler) snapshot() (int64, []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes.Load(), slices.Clone(c.wire)
}

func (c *countingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.next.ServeHTTP(&countingWriter{ResponseWriter: w, h: c}, r)
}

// countingWriter counts what is written through it. It flushes and
// unwraps to the writer it wraps, so server-sent events stream as they
// would without it.
type countingWriter struct {
	http.ResponseWriter
	h *countingHandler
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.h.bytes.Add(int64(n))
	if w.h.capture.Load() {
		w.h.mu.Lock()
		if len(w.h.wire) < maxCapture {
			w.h.wire = append(w.h.wire, p[:n]...)
		}
		w.h.mu.Unlock()
	}
	return n, err
}

// Flush flushes the wrapped writer.
func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// errSecret is the internal error of the masked workload.
var errSecret = errors.New(SecretText)
