package vet_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests of this package load the test modules under testdata with the
// go command, build mcperrvet and run it, and build and drive servers. They
// share what costs: the modules are downloaded once, mcperrvet is built
// once per test binary, every go command uses the one build cache of the
// environment, and every child process ends with its test.

// userEnv is the environment the tests were started with; moduleEnv is the
// one the test modules are loaded in: no workspace, no network (their
// modules are downloaded first), the go.mod files as they are.
var userEnv, moduleEnv []string

// workDir holds what the tests build once, for every test of the binary.
var workDir string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	// The analyses, here and in the go commands and mcperrvet the tests
	// start, spend much of their time collecting garbage: with twice the
	// heap (a few hundred MB more at most), about a tenth less CPU time.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
		if err := os.Setenv("GOGC", strconv.Itoa(gcPercent)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	userEnv = os.Environ()
	moduleEnv = withEnv(userEnv, "GOWORK=off", "GOFLAGS=-mod=readonly", "GOPROXY=off")
	// analysistest loads the test modules with the process's environment.
	for _, kv := range []string{"GOWORK=off", "GOFLAGS=-mod=readonly", "GOPROXY=off"} {
		k, v, _ := strings.Cut(kv, "=")
		if err := os.Setenv(k, v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	dir, err := os.MkdirTemp("", "mcperrvet-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	workDir = dir
	// The modules of the test module, fetched into the module cache through
	// the proxy the environment names: the analyses then load them with no
	// network, and a fresh machine has them too, whatever the rest of the
	// checkout happened to download.
	download := exec.Command("go", "mod", "download")
	download.Dir = filepath.Join("testdata", "mod")
	download.Env = withEnv(userEnv, "GOWORK=off", "GOFLAGS=-mod=readonly")
	if out, err := download.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go mod download in %s: %v\n%s", download.Dir, err, out)
	}
	return m.Run()
}

// gcPercent is GOGC for the tests and the processes they start, unless the
// environment sets it.
const gcPercent = 200

// withEnv returns env with the variables kvs (NAME=value) set, replacing
// any earlier value.
func withEnv(env []string, kvs ...string) []string {
	out := make([]string, 0, len(env)+len(kvs))
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		if !strings.HasPrefix(name, "GO") || !setsVar(kvs, name) {
			out = append(out, e)
		}
	}
	return append(out, kvs...)
}

func setsVar(kvs []string, name string) bool {
	for _, kv := range kvs {
		if n, _, _ := strings.Cut(kv, "="); n == name {
			return true
		}
	}
	return false
}

// testdata returns the module-mode test module: it requires the real SDKs
// and replaces mcperr with this repository, resolved from the module cache
// with no network.
func testdata(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "mod"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

var tool struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// buildTool builds mcperrvet, once per test binary, and returns its path.
func buildTool(t *testing.T) string {
	t.Helper()
	tool.once.Do(func() {
		tool.path = filepath.Join(workDir, "mcperrvet")
		build := exec.Command("go", "build", "-o", tool.path, "./cmd/mcperrvet")
		// In the checkout, as a user builds it.
		build.Env = withEnv(userEnv, "GOWORK=", "GOFLAGS=", "GOPROXY=")
		tool.out, tool.err = build.CombinedOutput()
	})
	if tool.err != nil {
		t.Fatalf("go build ./cmd/mcperrvet: %v\n%s", tool.err, tool.out)
	}
	return tool.path
}

// deadlineMargin is the time a long test keeps in hand before the test
// binary's deadline (go test -timeout): a step that would start with less
// fails the test instead, and a child process still running then is
// killed, so that the test says which step was slow rather than the binary
// panicking with every goroutine's stack.
const deadlineMargin = 20 * time.Second

// checkDeadline fails the test if less than deadlineMargin is left before
// the test binary's deadline, naming the step that was about to start.
func checkDeadline(t *testing.T, step string) {
	t.Helper()
	if d, ok := t.Deadline(); ok && time.Until(d) < deadlineMargin {
		t.Fatalf("%s: not started, %v left before the test deadline (go test -timeout); the steps before took too long",
			step, time.Until(d).Round(time.Second))
	}
}

// command returns the command name with args, run in dir with env (nil:
// the test module's), which is killed, with every process it started,
// when the test ends or when the test binary's deadline is near; and the
// context that does so.
func command(t *testing.T, dir string, env []string, name string, args ...string) (*exec.Cmd, context.Context) {
	t.Helper()
	ctx := t.Context()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-deadlineMargin/2))
		t.Cleanup(cancel)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if env == nil {
		env = moduleEnv
	}
	cmd.Env = env
	killGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	return cmd, ctx
}

// run runs the command name in dir with env (nil: the test module's), and
// returns its combined output and exit status. It fails the test if the
// command could not start, or was killed at the test's deadline.
func run(t *testing.T, dir string, env []string, name string, args ...string) ([]byte, int) {
	t.Helper()
	line := strings.Join(append([]string{filepath.Base(name)}, args...), " ")
	checkDeadline(t, line)
	cmd, ctx := command(t, dir, env, name, args...)
	begin := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil && ctx.Err() != nil {
		t.Fatalf("%s: killed after %v, with the test ending or %v before its deadline (go test -timeout): %v\n%s",
			line, time.Since(begin).Round(time.Second), deadlineMargin/2, err, out)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out, exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return out, 0
}
