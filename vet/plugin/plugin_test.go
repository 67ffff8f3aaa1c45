package plugin

import (
	"slices"
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/mcperr/mcperr/vet"
)

func names(as []*analysis.Analyzer) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Name)
	}
	return out
}

func build(t *testing.T, conf any) []string {
	t.Helper()
	p, err := New(conf)
	if err != nil {
		t.Fatalf("New(%v): %v", conf, err)
	}
	if got := p.GetLoadMode(); got != register.LoadModeTypesInfo {
		t.Errorf("GetLoadMode() = %q, want %q", got, register.LoadModeTypesInfo)
	}
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatalf("BuildAnalyzers: %v", err)
	}
	return names(as)
}

// TestRegistered checks that golangci-lint finds the plugin by the name its
// configuration uses.
func TestRegistered(t *testing.T) {
	if _, err := register.GetPlugin("mcperrvet"); err != nil {
		t.Fatal(err)
	}
}

func TestEveryAnalyzerByDefault(t *testing.T) {
	all := names(vet.Analyzers)
	if len(all) == 0 {
		t.Fatal("vet.Analyzers is empty")
	}
	for _, conf := range []any{nil, map[string]any{}, map[string]any{"disable": []any{}}} {
		if got := build(t, conf); !slices.Equal(got, all) {
			t.Errorf("settings %v: analyzers %v, want %v", conf, got, all)
		}
	}
}

func TestDisable(t *testing.T) {
	all := names(vet.Analyzers)
	if len(all) == 0 {
		t.Fatal("vet.Analyzers is empty")
	}
	off := all[0]
	got := build(t, map[string]any{"disable": []any{off}})
	if slices.Contains(got, off) || len(got) != len(all)-1 {
		t.Errorf("disable %s: analyzers %v", off, got)
	}
}

func TestBadSettings(t *testing.T) {
	for _, tc := range []struct {
		conf any
		want string
	}{
		{map[string]any{"disable": []any{"nosuch"}}, `no analyzer is named "nosuch"`},
		{map[string]any{"disabled": []any{}}, "unknown field"},
		{map[string]any{"disable": "mcperrsdktext"}, "decoding settings"},
	} {
		_, err := New(tc.conf)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%v) = %v, want an error containing %q", tc.conf, err, tc.want)
		}
	}
}
