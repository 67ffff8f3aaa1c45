package mcperr_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// domainWeightLimit is the most bytes a program that uses only mcperr's
// domain package may grow by over the same program with errors.New: what
// it measures (14.0 KB with Go 1.26) and a margin of 2 KB, so that a
// change that makes domain import a logging or formatting package fails.
// It was 150 KB, ten times the measure, and could not fail.
const domainWeightLimit = 16 << 10

// TestDomainWeight builds internal/testrig/weight/domain, a service layer
// that returns domain.NewNotFound and imports nothing else of mcperr, and
// internal/testrig/weight/errorsnew, the same with errors.New, and fails if
// the first is more than domainWeightLimit bytes larger: a service layer
// must pay little for returning domain errors.
func TestDomainWeight(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	base := binarySize(t, "./internal/testrig/weight/errorsnew")
	withDomain := binarySize(t, "./internal/testrig/weight/domain")
	grow := withDomain - base
	t.Logf("domain weight: %d bytes with domain.NewNotFound, %d with errors.New: +%d bytes (+%.1f KB; limit %d KB)",
		withDomain, base, grow, float64(grow)/1024, domainWeightLimit>>10)
	if grow > domainWeightLimit {
		t.Errorf("a program using only domain is %d bytes larger than with errors.New, over the limit of %d", grow, domainWeightLimit)
	}
}

// TestServerWeight builds the smallest stdio server of each SDK with one
// tool, bare (internal/testrig/weight/bare, .../mcpgobare) and with mcperr
// installed (.../mcperr, .../mcpgomcperr), and fails if mcperr adds more
// than the SDK's limit: 0.8 MB on go-sdk, the promise, less a margin (0.60
// MiB measured with Go 1.26 and go-sdk v1.8; 1.65 MB when mcperr linked a
// JSON Schema engine of its own); on mcp-go, what it measures (0.82 MiB with
// mcp-go v1.2.1, which links a second engine of its own; 0.88 MiB once
// retried attempts got the client's arguments again, a copy of mcp-go's map,
// and task failures ran through the engine) and a margin.
func TestServerWeight(t *testing.T) {
	if testing.Short() {
		t.Skip("builds four programs")
	}
	for _, tc := range []struct {
		sdk, bare, with string
		limit           int64
	}{
		{"go-sdk", "bare", "mcperr", 750 << 10},
		{"mcp-go", "mcpgobare", "mcpgomcperr", 920 << 10},
	} {
		bare := binarySize(t, "./internal/testrig/weight/"+tc.bare)
		with := binarySize(t, "./internal/testrig/weight/"+tc.with)
		grow := with - bare
		t.Logf("%s server weight: %d bytes bare, %d with mcperr: +%d bytes (+%.2f MiB; limit %.2f MiB)",
			tc.sdk, bare, with, grow, float64(grow)/(1<<20), float64(tc.limit)/(1<<20))
		if grow > tc.limit {
			t.Errorf("mcperr adds %d bytes to the smallest %s server, over the limit of %d", grow, tc.sdk, tc.limit)
		}
	}
}

// binarySize builds the program pkg and returns the size of its binary.
func binarySize(t *testing.T, pkg string) int64 {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
