package osfilter_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/mcperr/mcperr/contrib/osfilter"
	"github.com/mcperr/mcperr/filter"
)

// row is one row of the table of what the model reads, as a page shows it.
type row struct {
	error, code, retry string
	message            string // README.md only
}

// tableErrors gives each row of the table, by its first column, an error
// it stands for.
var tableErrors = map[string]error{
	"fs.ErrNotExist":   &fs.PathError{Op: "open", Path: "/srv/" + canary, Err: syscall.ENOENT},
	"fs.ErrPermission": &fs.PathError{Op: "open", Path: "/srv/" + canary, Err: syscall.EACCES},
	"fs.ErrExist":      &fs.PathError{Op: "open", Path: "/srv/" + canary, Err: syscall.EEXIST},
	"ENOTEMPTY":        &fs.PathError{Op: "remove", Path: "/srv/" + canary, Err: syscall.ENOTEMPTY},
	"ECONNREFUSED, a Unix socket file not there": &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)},
	"a timeout of a dial or a reading HTTP call": &url.Error{Op: "Get", URL: "http://" + canary, Err: context.DeadlineExceeded},
	"any other timeout, a bare one included":     fmt.Errorf("charge %s: %w", canary, context.DeadlineExceeded),
	"a reset of a dial or a reading HTTP call":   &url.Error{Op: "Get", URL: "http://" + canary, Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}},
	"any other reset":                            &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)},
	"any other *net.OpError":                     &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", syscall.EACCES)},
	"any other error":                            errors.New("the order total overflowed"),
}

// TestDocsAgree checks that the table of the package documentation and
// that of README.md have the same rows, and that the filter answers an
// error of each row as the row says: its code, its retry advice and, in
// README.md, what the model reads.
func TestDocsAgree(t *testing.T) {
	doc, readme := docTable(t), readmeTable(t)
	if len(doc) != len(readme) {
		t.Errorf("doc.go's table has %d rows, README.md's %d", len(doc), len(readme))
	}
	for i := range min(len(doc), len(readme)) {
		d, r := doc[i], readme[i]
		if d.error != r.error || d.code != r.code || d.retry != r.retry {
			t.Errorf("row %d: doc.go says %q, %q, %q; README.md %q, %q, %q", i+1, d.error, d.code, d.retry, r.error, r.code, r.retry)
		}
	}
	for _, r := range readme {
		err, ok := tableErrors[r.error]
		if !ok {
			t.Errorf("README.md's row %q: no error of this test stands for it", r.error)
			continue
		}
		resp, next := osfilter.New().Catch(t.Context(), filter.Call{Tool: "op"}, err)
		if next != nil {
			t.Fatalf("%v: the filter failed: %v", err, next)
		}
		if got := answered(resp); got.code != r.code || got.retry != r.retry || got.message != r.message {
			t.Errorf("%v: the filter answers %q, retry %q, the model reading %q; the row says %q, retry %q, %q",
				err, got.code, got.retry, got.message, r.code, r.retry, r.message)
		}
	}
}

// answered returns the code, retry advice and message of the row that
// says what r answers.
func answered(r *filter.Response) row {
	if r == nil {
		return row{code: "passed on", retry: "-", message: "-"}
	}
	retry := "no"
	switch {
	case r.MayHaveTakenEffect:
		retry = "outcome unknown"
	case r.Retryable != nil && *r.Retryable && r.RetryAfter > 0:
		retry = fmt.Sprintf("yes, after %v s", r.RetryAfter.Seconds())
	case r.Retryable != nil && *r.Retryable:
		retry = "yes"
	}
	return row{code: string(r.Code), retry: retry, message: r.Message}
}

// docTable returns the rows of the table under "What the model reads" in
// doc.go: indented lines whose columns are two spaces or more apart.
func docTable(t *testing.T) []row {
	t.Helper()
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "// # What the model reads\n")
	if !ok {
		t.Fatal(`doc.go has no section "What the model reads"`)
	}
	cols := regexp.MustCompile(` {2,}`)
	var rows []row
	for line := range strings.Lines(after) {
		cells, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "//\t")
		if !ok {
			if len(rows) > 0 {
				break
			}
			continue
		}
		c := cols.Split(cells, -1)
		if len(c) != 3 {
			t.Fatalf("doc.go: %q is no row of three columns", cells)
		}
		rows = append(rows, row{error: c[0], code: c[1], retry: c[2]})
	}
	if len(rows) < 2 {
		t.Fatal("doc.go's table has no rows")
	}
	return rows[1:] // the header
}

// readmeTable returns the rows of the table under "## Mapping" in
// README.md, without the backquotes.
func readmeTable(t *testing.T) []row {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "## Mapping\n")
	if !ok {
		t.Fatal(`README.md has no section "Mapping"`)
	}
	var rows []row
	for line := range strings.Lines(after) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		c := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|"), "|")
		if len(c) != 4 {
			t.Fatalf("README.md: %q is no row of four columns", line)
		}
		for i := range c {
			c[i] = strings.TrimSpace(strings.ReplaceAll(c[i], "`", ""))
		}
		rows = append(rows, row{error: c[0], code: c[1], message: c[2], retry: c[3]})
	}
	if len(rows) < 3 {
		t.Fatal("README.md's table has no rows")
	}
	return rows[2:] // the header and the line under it
}
