// Package plugin registers mcperr's analyzers as a golangci-lint module
// plugin named "mcperrvet".
//
// golangci-lint builds a custom binary that imports this package (golangci-lint
// custom, driven by .custom-gcl.yml), then enables the linter by that name in
// .golangci.yml:
//
//	# .custom-gcl.yml
//	version: v2.15.0
//	plugins:
//	  - module: github.com/mcperr/mcperr/vet
//	    import: github.com/mcperr/mcperr/vet/plugin
//	    version: <version> # or, from a checkout: path: ../mcperr/vet
//
//	# .golangci.yml
//	version: "2"
//	linters:
//	  enable:
//	    - mcperrvet
//	  settings:
//	    custom:
//	      mcperrvet:
//	        type: module
//	        description: error-handling leaks in MCP servers
//	        settings:
//	          disable: [] # names of analyzers to leave out
//	issues:
//	  max-same-issues: 0 # the default, 3, hides repeated messages
//
// docs/static-checks.md in the repository has the whole procedure.
package plugin

import (
	"fmt"
	"slices"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/mcperr/mcperr/vet"
)

func init() {
	register.Plugin("mcperrvet", New)
}

// Settings are the plugin's settings in .golangci.yml.
type Settings struct {
	// Disable names analyzers (as mcperrvet -help lists them) to leave out.
	Disable []string `json:"disable"`
}

// Plugin is the golangci-lint plugin: mcperr's analyzers less the disabled ones.
type Plugin struct {
	settings Settings
}

var _ register.LinterPlugin = (*Plugin)(nil)

// New decodes the settings golangci-lint passes and returns the plugin. An
// unknown setting, or a disabled name that is no analyzer, is an error, so
// a typo in the configuration does not silently turn nothing off.
func New(conf any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](conf)
	if err != nil {
		return nil, fmt.Errorf("mcperrvet: %w", err)
	}
	for _, name := range s.Disable {
		if !slices.ContainsFunc(vet.Analyzers, func(a *analysis.Analyzer) bool { return a.Name == name }) {
			return nil, fmt.Errorf("mcperrvet: disable: no analyzer is named %q", name)
		}
	}
	return &Plugin{settings: s}, nil
}

// BuildAnalyzers returns the analyzers that are not disabled.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	var out []*analysis.Analyzer
	for _, a := range vet.Analyzers {
		if !slices.Contains(p.settings.Disable, a.Name) {
			out = append(out, a)
		}
	}
	return out, nil
}

// GetLoadMode says the analyzers need type information.
func (p *Plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
