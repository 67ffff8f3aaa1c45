package vet_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcperr/mcperr/vet"
	"golang.org/x/tools/go/analysis/analysistest"
)

// downloadOnce fetches the modules of the test module into the module
// cache, through the proxy the environment names, once per test binary:
// the analyses then load them with no network, and a fresh machine has
// them too, whatever the rest of the checkout happened to download.
var downloadOnce sync.Once

// testdata returns the module-mode test module: it requires the real SDKs
// and replaces mcperr with this repository, resolved from the module cache
// with no network.
func testdata(t *testing.T) string {
	t.Helper()
	downloadOnce.Do(func() {
		cmd := exec.Command("go", "mod", "download")
		cmd.Dir = filepath.Join("testdata", "mod")
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("go mod download in %s: %v\n%s", cmd.Dir, err, out)
		}
	})
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	dir, err := filepath.Abs(filepath.Join("testdata", "mod"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPublicErrorText(t *testing.T) {
	analysistest.Run(t, testdata(t), vet.PublicErrorText, "./publictext")
}

func TestSDKErrorText(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, testdata(t), vet.SDKErrorText, "./sdktext")
}

func TestStructuredHandler(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, testdata(t), vet.StructuredHandler, "./structured", "./structurednoadapter", "./structuredrenamed")
}

func TestNotInstalled(t *testing.T) {
	analysistest.Run(t, testdata(t), vet.NotInstalled, "./install", "./installnomcperr")
}
