//go:build unix

package serverside

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv names the case a test binary serves when it runs as the server
// process of BenchProcess.
const helperEnv = "MCPERR_SERVERSIDE_CASE"

// Serve makes the test binary the server process of BenchProcess when it
// is run as one: it serves the HTTP case named in its environment, with
// the handler that handler returns, on 127.0.0.1, prints its URL, and
// exits when its standard input closes. Otherwise it returns at once. Call
// it from a test named TestServerSideProcess.
func Serve(handler func(Case) http.Handler) {
	name := os.Getenv(helperEnv)
	if name == "" {
		return
	}
	for _, c := range Cases {
		if c.Name == name {
			mux := http.NewServeMux()
			mux.Handle("/mcp", handler(c))
			mux.HandleFunc("/cpu", func(w http.ResponseWriter, _ *http.Request) {
				var ru syscall.Rusage
				_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
				fmt.Fprintln(w, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()).Microseconds())
			})
			ts := httptest.NewServer(mux)
			fmt.Println("URL", ts.URL)
			_, _ = io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}
	}
	fmt.Println("no case", name)
	os.Exit(2)
}

// Client connects a client to the MCP endpoint url and returns a function
// that sends c's request once and returns the answer as JSON, or the
// error the client returns.
type Client func(tb testing.TB, url string, c Case) func() string

// BenchProcess measures the server's CPU per call over streamable HTTP on
// 127.0.0.1, with the server in a process of its own (this test binary,
// run as TestServerSideProcess: see Serve): the metric server-µs/call is
// the server process's user and system time over b.N calls, read with
// getrusage. Each HTTP case is measured with two clients in this process:
// "raw", which posts the pre-encoded request and decodes nothing, and
// "sdk", the SDK's own client that sdk connects, as servers meet it.
func BenchProcess(b *testing.B, sdk Client) {
	raw := func(tb testing.TB, url string, c Case) func() string {
		var last string
		d, _ := HTTP(tb, c.Body, remote{url, &last})
		return func() string { d.Call(); return last }
	}
	for _, client := range []struct {
		name string
		dial Client
	}{{"raw", raw}, {"sdk", sdk}} {
		for _, c := range Cases {
			if c.HTTP {
				b.Run(client.name+"/"+c.Name, func(b *testing.B) { benchProcess(b, c, client.dial) })
			}
		}
	}
}

func benchProcess(b *testing.B, c Case, dial Client) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerSideProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+c.Name)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	var url string
	if _, err := fmt.Fscanln(out, new(string), &url); err != nil {
		b.Fatalf("the server process: %v", err)
	}
	call := dial(b, url+"/mcp", c)
	if first := call(); !strings.Contains(first, c.Want) {
		b.Fatalf("%s: the answer does not hold %q: %s", c.Name, c.Want, first)
	}
	for range 200 {
		call()
	}
	cpu := func() time.Duration {
		resp, err := http.Get(url + "/cpu")
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var us int64
		if _, err := fmt.Fscan(resp.Body, &us); err != nil {
			b.Fatal(err)
		}
		return time.Duration(us) * time.Microsecond
	}
	start := cpu()
	b.ResetTimer()
	for b.Loop() {
		call()
	}
	b.StopTimer()
	b.ReportMetric(float64((cpu()-start).Microseconds())/float64(b.N), "server-µs/call")
}

// remote is an http.Handler that sends each request to url over the
// network, and copies back the status, headers and body of the answer,
// which it keeps in last.
type remote struct {
	url  string
	last *string
}

func (r remote) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	out, err := http.NewRequest(req.Method, r.url, req.Body)
	if err != nil {
		panic(err)
	}
	out.Header = req.Header
	resp, err := http.DefaultClient.Do(out)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	body, _ := io.ReadAll(resp.Body)
	*r.last = string(body)
	_, _ = w.Write(body)
}
