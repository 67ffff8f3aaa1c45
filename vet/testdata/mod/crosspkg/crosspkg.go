// Package crosspkg calls the result helpers of another package of its
// module, and imports no SDK itself.
package crosspkg

import (
	"errors"

	"example.com/vettest/helpers"
)

var errLocked = errors.New("order locked")

func leaks(err error) any {
	return helpers.ToolErrorResult(err.Error()) // want `through helpers.ToolErrorResult: mcp.NewToolResultError text`
}

func leaksFormatted(err error) any {
	return helpers.ToolErrorf("get issue: %v", err) // want `through helpers.ToolErrorf`
}

func leaksTwoDeep(err error) any {
	return helpers.Wrapped("failed", err.Error()) // want `through helpers.Wrapped`
}

func deliberate(id string) any { // want deliberate:`sdkHelper`
	return helpers.ToolErrorResult("Order " + id + " is locked; try again in a minute.")
}

func success(err error) any {
	return helpers.Success("retried after " + err.Error())
}
