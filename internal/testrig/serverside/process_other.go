//go:build !unix

package serverside

import (
	"net/http"
	"testing"
)

// Serve returns at once: the server process of BenchProcess reads its CPU
// time with getrusage, which only Unix systems have.
func Serve(func(Case) http.Handler) {}

// BenchProcess skips: it reads the server's CPU time with getrusage,
// which only Unix systems have.
func BenchProcess(b *testing.B) { b.Skip("needs getrusage, which only Unix systems have") }
