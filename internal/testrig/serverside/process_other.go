//go:build !unix

package serverside

import (
	"net/http"
	"testing"
)

// Serve returns at once: the server process of BenchProcess reads its CPU
// time with getrusage, which only Unix systems have.
func Serve(func(Case) http.Handler) {}

// Client connects a client to the MCP endpoint url and returns a function
// that sends c's request once and returns the answer as JSON, or the
// error the client returns.
type Client func(tb testing.TB, url string, c Case) func() string

// BenchProcess skips: it reads the server's CPU time with getrusage,
// which only Unix systems have.
func BenchProcess(b *testing.B, _ Client) { b.Skip("needs getrusage, which only Unix systems have") }
