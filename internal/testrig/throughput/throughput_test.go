package throughput

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcperr/mcperr/filter"
)

// TestThroughputSmoke runs one short window of each SDK, bare and with
// mcperr, on the masked workload, and checks that the harness counts calls
// and bytes and that the secret reaches the client from the bare server
// only.
func TestThroughputSmoke(t *testing.T) {
	for _, sdk := range []SDK{GoSDK, MCPGo} {
		for _, withMcperr := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/mcperr=%v", sdk, withMcperr), func(t *testing.T) {
				res, err := Run(Config{SDK: sdk, Workload: Masked, Mcperr: withMcperr, Sessions: 2, Duration: 50 * time.Millisecond, Capture: true})
				if err != nil {
					t.Fatal(err)
				}
				if res.Calls == 0 {
					t.Fatal("no calls counted")
				}
				if res.Failures != res.Calls {
					t.Errorf("%d of %d calls failed, want all", res.Failures, res.Calls)
				}
				if res.WireBytesPerCall < float64(len("hunter2")) {
					t.Errorf("%.1f wire bytes a call, want at least one answer's worth", res.WireBytesPerCall)
				}
				if res.P50 <= 0 || res.P99 < res.P50 {
					t.Errorf("p50 %v, p99 %v", res.P50, res.P99)
				}
				if res.AllocsPerCall <= 0 {
					t.Errorf("%.1f allocations a call", res.AllocsPerCall)
				}
				leaked := strings.Contains(res.Sample, "hunter2")
				onWire := strings.Contains(string(res.Wire), "hunter2")
				if withMcperr && (leaked || onWire) {
					t.Errorf("mcperr sent the secret (client saw %q; on the wire: %v)", res.Sample, onWire)
				}
				if !withMcperr && (!leaked || !onWire) {
					t.Errorf("the bare server's answer should hold the raw text: client saw %q; on the wire: %v", res.Sample, onWire)
				}
			})
		}
	}
}

// TestPanicWorkload checks that one call in ten of the panic workload
// fails, and the others succeed, with and without mcperr. It drives short
// windows until at least 20 calls are made, however slow the machine.
func TestPanicWorkload(t *testing.T) {
	for _, sdk := range []SDK{GoSDK, MCPGo} {
		for _, withMcperr := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/mcperr=%v", sdk, withMcperr), func(t *testing.T) {
				r, err := Start(Config{SDK: sdk, Workload: Panic10, Mcperr: withMcperr})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				var calls, failures int
				for i := 0; calls < 20; i++ {
					if i == 400 {
						t.Fatalf("only %d calls in 20 s", calls)
					}
					res := r.Window(50 * time.Millisecond)
					calls, failures = calls+res.Calls, failures+res.Failures
				}
				if want := calls / 10; failures != want {
					t.Errorf("%d of %d calls failed, want %d", failures, calls, want)
				}
			})
		}
	}
}

// windows is the number of measuring windows of each server in a cell of
// BenchmarkThroughput and BenchmarkShape.
var windows = flag.Int("windows", 11, "measuring windows of each server in a benchmark cell")

// window is the length of one measuring window.
const window = 200 * time.Millisecond

// BenchmarkThroughput measures calls over streamable HTTP on 127.0.0.1,
// for each SDK, workload and number of sessions, alternating windows of
// the bare server and of the same server with mcperr, and reports medians
// of the windows. The ratio is the median, over the pairs of adjacent
// windows, of mcperr's calls per second over the bare server's: the two
// servers of a pair ran on the machine in the same state, so a drift of
// the machine's speed during the cell cancels out.
//
//	go test -run='^$' -bench=Throughput -benchtime=1x ./internal/testrig/throughput
func BenchmarkThroughput(b *testing.B) {
	for _, sdk := range []SDK{GoSDK, MCPGo} {
		for _, w := range Workloads {
			for _, n := range []int{1, 16, 64} {
				b.Run(fmt.Sprintf("%s/%s/N=%d", sdk, w, n), func(b *testing.B) {
					bare, err := Start(Config{SDK: sdk, Workload: w, Sessions: n})
					if err != nil {
						b.Fatal(err)
					}
					defer bare.Close()
					with, err := Start(Config{SDK: sdk, Workload: w, Mcperr: true, Sessions: n})
					if err != nil {
						b.Fatal(err)
					}
					defer with.Close()
					for b.Loop() {
						// Warm both up, then alternate.
						bare.Window(window / 4)
						with.Window(window / 4)
						var rb, rm []Result
						for i := range *windows {
							if i%2 == 0 {
								rb = append(rb, bare.Window(window))
								rm = append(rm, with.Window(window))
							} else {
								rm = append(rm, with.Window(window))
								rb = append(rb, bare.Window(window))
							}
						}
						report(b, "bare", rb)
						report(b, "mcperr", rm)
						b.ReportMetric(pairedRatio(rm, rb), "ratio")
					}
				})
			}
		}
	}
}

// report reports the medians of the windows of one mode.
func report(b *testing.B, mode string, rs []Result) {
	b.ReportMetric(median(rs, Result.CallsPerSecond), mode+"-calls/s")
	b.ReportMetric(median(rs, func(r Result) float64 { return float64(r.P50.Microseconds()) }), mode+"-p50-µs")
	b.ReportMetric(median(rs, func(r Result) float64 { return float64(r.P99.Microseconds()) }), mode+"-p99-µs")
	b.ReportMetric(median(rs, func(r Result) float64 { return float64(r.CPUPerCall.Nanoseconds()) / 1e3 }), mode+"-cpu-µs/call")
	b.ReportMetric(median(rs, func(r Result) float64 { return r.AllocsPerCall }), mode+"-allocs/call")
	b.ReportMetric(median(rs, func(r Result) float64 { return r.WireBytesPerCall }), mode+"-wire-bytes/call")
}

// pairedRatio is the median over i of the calls per second of num[i]
// over those of den[i].
func pairedRatio(num, den []Result) float64 {
	ratios := make([]float64, len(num))
	for i := range num {
		ratios[i] = num[i].CallsPerSecond() / den[i].CallsPerSecond()
	}
	slices.Sort(ratios)
	return ratios[len(ratios)/2]
}

// median is the median of f over rs.
func median(rs []Result, f func(Result) float64) float64 {
	v := make([]float64, 0, len(rs))
	for _, r := range rs {
		v = append(v, f(r))
	}
	slices.Sort(v)
	if len(v) == 0 {
		return math.NaN()
	}
	return v[len(v)/2]
}

// TestShapes checks that each shaped tool answers with the texts mcperr
// sends for the workload, and that the full shape is mcperr's answer with
// the same number of bytes, give or take the digits of the id.
func TestShapes(t *testing.T) {
	for _, sdk := range []SDK{GoSDK, MCPGo} {
		for _, w := range []Workload{ToolError, Masked} {
			with, err := Run(Config{SDK: sdk, Workload: w, Mcperr: true, Duration: 30 * time.Millisecond, Capture: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, shape := range Shapes {
				t.Run(fmt.Sprintf("%s/%s/%s", sdk, w, shape), func(t *testing.T) {
					res, err := Run(Config{SDK: sdk, Workload: w, Shape: shape, Duration: 30 * time.Millisecond, Capture: true})
					if err != nil {
						t.Fatal(err)
					}
					if res.Calls == 0 || res.Failures != res.Calls {
						t.Fatalf("%d of %d calls failed, want all", res.Failures, res.Calls)
					}
					wantText := with.Sample
					if shape == ShapeEnvelope {
						wantText = strings.SplitAfter(with.Sample, "\n")[0]
					}
					if w == Masked {
						// The ref differs from one answer to the next.
						wantText, res.Sample = refless(wantText), refless(res.Sample)
					}
					if res.Sample != wantText {
						t.Errorf("the model reads %q, want %q", res.Sample, wantText)
					}
					hasEnvelope := strings.Contains(string(res.Wire), filter.MetaKey)
					if hasEnvelope != (shape != ShapeBlocks) {
						t.Errorf("envelope on the wire: %v", hasEnvelope)
					}
					// The median answer, not the mean: a run of a few calls
					// (under the race detector) is skewed by the stream's
					// framing and by the length of each answer's timestamp.
					if got, want := medianAnswer(res.Wire), medianAnswer(with.Wire); shape == ShapeFull && (want == 0 || math.Abs(float64(got-want)) > 4) {
						t.Errorf("the median answer is %d bytes on the wire, mcperr's %d", got, want)
					}
				})
			}
		}
	}
}

// refless replaces every "(ref: R)" in s with "(ref: -)".
func refless(s string) string {
	return refPattern.ReplaceAllString(s, "(ref: -)")
}

var refPattern = regexp.MustCompile(`\(ref: [0-9a-f]+\)`)

// BenchmarkShape tells what the bytes of mcperr's answer to a failure cost
// from what its code costs: for each SDK, failing workload and number of
// sessions, it alternates windows of the bare server answering the SDK's
// own way, of the bare server answering in each Shape (built by the
// handler), and of the server with mcperr, and reports each one's calls
// per second over the bare server's (ratio-<shape>, ratio-mcperr) with its
// wire bytes a call.
//
//	go test -run='^$' -bench=Shape -benchtime=1x ./internal/testrig/throughput
func BenchmarkShape(b *testing.B) {
	for _, sdk := range []SDK{GoSDK, MCPGo} {
		for _, w := range []Workload{ToolError, Masked} {
			for _, n := range []int{1, 16, 64} {
				b.Run(fmt.Sprintf("%s/%s/N=%d", sdk, w, n), func(b *testing.B) {
					names := []string{"bare"}
					cfgs := []Config{{SDK: sdk, Workload: w, Sessions: n}}
					for _, s := range Shapes {
						names = append(names, string(s))
						cfgs = append(cfgs, Config{SDK: sdk, Workload: w, Shape: s, Sessions: n})
					}
					names = append(names, "mcperr")
					cfgs = append(cfgs, Config{SDK: sdk, Workload: w, Mcperr: true, Sessions: n})
					rigs := make([]*Rig, len(cfgs))
					for i, cfg := range cfgs {
						r, err := Start(cfg)
						if err != nil {
							b.Fatal(err)
						}
						defer r.Close()
						rigs[i] = r
					}
					for b.Loop() {
						for _, r := range rigs {
							r.Window(window / 4)
						}
						results := make([][]Result, len(rigs))
						for round := range *windows {
							for k := range rigs {
								i := (k + round) % len(rigs) // each rig first in turn
								results[i] = append(results[i], rigs[i].Window(window))
							}
						}
						for i, name := range names {
							b.ReportMetric(pairedRatio(results[i], results[0]), "ratio-"+name)
							b.ReportMetric(median(results[i], func(r Result) float64 { return r.WireBytesPerCall }), "bytes-"+name)
						}
					}
				})
			}
		}
	}
}

// medianAnswer returns the median length of the tool results in wire, the
// response bodies a server wrote: each a JSON-RPC response with a result,
// on a line of its own (an SSE data line) or as a body of its own.
func medianAnswer(wire []byte) int {
	var lens []int
	for _, line := range bytes.Split(wire, []byte("\n")) {
		if bytes.Contains(line, []byte(`"result"`)) && bytes.Contains(line, []byte(`"isError"`)) {
			lens = append(lens, len(line))
		}
	}
	if len(lens) == 0 {
		return 0
	}
	slices.Sort(lens)
	return lens[len(lens)/2]
}
