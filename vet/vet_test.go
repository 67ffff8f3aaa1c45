package vet_test

import (
	"path/filepath"
	"testing"

	"github.com/mcperr/mcperr/vet"
	"golang.org/x/tools/go/analysis/analysistest"
)

// testdata returns the module-mode test module: it requires the real SDKs
// and replaces mcperr with this repository, resolved from the module cache
// with no network.
func testdata(t *testing.T) string {
	t.Helper()
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
