// Package toolsets holds kubeserver's tools, in its own framework's shape.
package toolsets

import (
	"errors"
	"fmt"

	"example.com/vettest/kubeserver/api"
)

// Tools returns the tools of the toolset.
func Tools() []api.Tool {
	return []api.Tool{
		{Name: "pods_get", Description: "Get a pod.", Handler: podsGet},
		{Name: "pods_log", Description: "Get a pod's log.", Handler: podsLog},
		{Name: "nodes_top", Description: "Show the nodes' usage.", Handler: nodesTop},
		{Name: "resources_scale", Description: "Scale a resource.", Handler: resourcesScale},
	}
}

func podsGet(params api.Params) (*api.Result, error) {
	name, err := api.RequiredString(params, "name") // want: masked
	if err != nil {
		return api.NewResult("", err), nil
	}
	pod, err := params.Client.Get(params.Context, "/api/v1/pods/"+name)
	if err != nil {
		return api.NewResult("", fmt.Errorf("failed to get pod %s: %w", name, err)), nil
	}
	return api.NewResult(pod, nil), nil
}

func podsLog(params api.Params) (*api.Result, error) {
	name, err := api.RequiredString(params, "name") // want: masked
	if err != nil {
		return api.NewResult("", err), nil
	}
	if params.GetArguments()["container"] == nil {
		return api.NewResult("", errors.New("failed to get pod log, missing argument container")), nil // want: masked
	}
	log, err := params.Client.Get(params.Context, "/api/v1/pods/"+name+"/log")
	if err != nil {
		return api.NewResult("", fmt.Errorf("failed to get pod log: %w", err)), nil
	}
	return api.NewResult(log, nil), nil
}

func nodesTop(params api.Params) (*api.Result, error) {
	top, err := params.Client.Get(params.Context, "/apis/metrics/nodes")
	if err != nil {
		return &api.Result{Error: fmt.Errorf("failed to get nodes top: %w", err)}, nil
	}
	return &api.Result{Content: top}, nil
}

func resourcesScale(params api.Params) (*api.Result, error) {
	kind := params.GetArguments()["kind"]
	if kind != "Deployment" && kind != "StatefulSet" {
		return api.NewResult("", fmt.Errorf("cannot scale a %v: only Deployment and StatefulSet scale", kind)), nil // want: masked
	}
	return scale(params, kind.(string))
}

func scale(params api.Params, kind string) (*api.Result, error) {
	if _, ok := params.GetArguments()["replicas"].(float64); !ok {
		return api.NewResult("", errors.New("replicas is required")), nil // want: masked
	}
	out, err := params.Client.Get(params.Context, "/apis/apps/v1/"+kind+"/scale")
	if err != nil {
		return nil, err
	}
	return api.NewResult(out, nil), nil
}
