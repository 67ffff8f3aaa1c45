// Package fwtools has the handlers of a server's own tool framework
// (fwapi), which put their failures in their result's Error field.
package fwtools

import (
	"errors"
	"fmt"
	"os"

	"example.com/vettest/fwapi"
)

// Tools is the toolset's table.
var Tools = []fwapi.Tool{
	{Name: "pods_get", Handler: podsGet},
	{Name: "pods_restart", Handler: podsRestart},
	{Name: "nodes_get", Handler: func(params fwapi.Params) (*fwapi.Result, error) {
		if params.GetArguments()["name"] == nil {
			return fwapi.NewResult("", errors.New("failed to get node, missing argument name")), nil // want `a message for the model returned as a plain error`
		}
		return fwapi.Text("node"), nil
	}},
}

func podsGet(params fwapi.Params) (*fwapi.Result, error) {
	name, err := fwapi.RequiredString(params, "name") // want `the errors of fwapi.RequiredString include a message for the model`
	if err != nil {
		return fwapi.NewResult("", err), nil
	}
	if name == "kube-system" {
		return &fwapi.Result{Error: errors.New("the pods of kube-system are not shown")}, nil // want `a message for the model returned as a plain error`
	}
	if action := params.GetArguments()["action"]; action != "get" {
		return fwapi.NewResult("", fmt.Errorf("invalid action %v: must be get", action)), nil // want `a message for the model returned as a plain error`
	}
	mode, err := fwapi.RequiredString(params, "mode") // want `the errors of fwapi.RequiredString include a message for the model`
	if err != nil {
		return fwapi.NewResult("", err), nil
	}
	if mode != "fast" && mode != "full" { // an argument read by the framework's accessor
		return fwapi.NewResult("", fmt.Errorf("unknown mode %q: must be fast or full", mode)), nil // want `a message for the model returned as a plain error`
	}
	pod, err := os.ReadFile(name)
	if err != nil {
		return fwapi.NewResult("", fmt.Errorf("failed to get pod %s: %w", name, err)), nil // an upstream's failure: masked, as it should be
	}
	return fwapi.Text(string(pod)), nil
}

// podsRestart returns the result a function of the package builds.
func podsRestart(params fwapi.Params) (*fwapi.Result, error) {
	return restart(params.GetArguments()["name"])
}

func restart(name any) (*fwapi.Result, error) {
	if name == nil {
		return fwapi.NewResultFull("", nil, errors.New("name is required")), nil // want `a message for the model returned as a plain error`
	}
	return fwapi.Text("restarted"), nil
}

// notATool has a handler's shape but is never registered: its messages
// are not reported.
func notATool() (*fwapi.Result, error) {
	return fwapi.NewResult("", errors.New("not registered")), nil
}

// Prompts is the toolset's prompts: the SDK sends a prompt's errors as
// written, so its messages are not reported.
var Prompts = []fwapi.Prompt{{Name: "review", Handler: review}}

func review(params fwapi.PromptParams) (*fwapi.PromptResult, error) {
	if params.GetArguments()["namespace"] == "" {
		return nil, errors.New("namespace argument is required")
	}
	return &fwapi.PromptResult{Text: "review " + params.GetArguments()["namespace"]}, nil
}
