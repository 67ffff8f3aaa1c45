package throughput

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
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
// fails, and the others succeed, with and without mcperr.
func TestPanicWorkload(t *testing.T) {
	for _, sdk := range []SDK{GoSDK, MCPGo} {
		for _, withMcperr := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/mcperr=%v", sdk, withMcperr), func(t *testing.T) {
				r, err := Start(Config{SDK: sdk, Workload: Panic10, Mcperr: withMcperr})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				res := r.Window(50 * time.Millisecond)
				if res.Calls < 10 {
					t.Fatalf("only %d calls", res.Calls)
				}
				if want := res.Calls / 10; res.Failures != want {
					t.Errorf("%d of %d calls failed, want %d", res.Failures, res.Calls, want)
				}
			})
		}
	}
}

// BenchmarkThroughput measures calls over streamable HTTP on 127.0.0.1,
// for each SDK, workload and number of sessions, alternating windows of
// the bare server and of the same server with mcperr, and reports medians
// of the windows. The ratio is mcperr/bare of calls per second.
//
//	go test -run='^$' -bench=Throughput -benchtime=1x ./internal/testrig/throughput
func BenchmarkThroughput(b *testing.B) {
	const windows = 5
	const window = 200 * time.Millisecond
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
						for i := range windows {
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
						b.ReportMetric(median(rm, Result.CallsPerSecond)/median(rb, Result.CallsPerSecond), "ratio")
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
