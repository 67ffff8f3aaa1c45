package ghserver

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// arguments decodes the arguments of a call; none is an empty map.
func arguments(req *mcp.CallToolRequest) (map[string]any, error) {
	args := map[string]any{}
	if len(req.Params.Arguments) == 0 {
		return args, nil
	}
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return nil, fmt.Errorf("arguments must be an object: %w", err)
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, nil
}

// requiredParam returns the parameter p of type T, which must be present
// and not its zero value.
func requiredParam[T comparable](args map[string]any, p string) (T, error) {
	var zero T
	v, ok := args[p]
	if !ok {
		return zero, fmt.Errorf("missing required parameter: %s", p)
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("parameter %s is not of type %T", p, zero)
	}
	if t == zero {
		return zero, fmt.Errorf("missing required parameter: %s", p)
	}
	return t, nil
}

// toInt reads a number sent as a JSON number or as a numeric string.
func toInt(v any, p string) (int, error) {
	switch n := v.(type) {
	case float64:
		if n != math.Trunc(n) {
			return 0, fmt.Errorf("parameter %s must be a whole number", p)
		}
		return int(n), nil
	case string:
		i, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil {
			return 0, fmt.Errorf("parameter %s is not a number: %q", p, n)
		}
		return i, nil
	}
	return 0, fmt.Errorf("parameter %s is not a number", p)
}

// requiredInt returns the whole number p, which must be present.
func requiredInt(args map[string]any, p string) (int, error) {
	v, ok := args[p]
	if !ok {
		return 0, fmt.Errorf("missing required parameter: %s", p)
	}
	return toInt(v, p)
}

// optionalInt returns the whole number p, or def if it is absent.
func optionalInt(args map[string]any, p string, def int) (int, error) {
	v, ok := args[p]
	if !ok || v == nil {
		return def, nil
	}
	return toInt(v, p)
}

// optionalString returns the string p, or def if it is absent.
func optionalString(args map[string]any, p, def string) (string, error) {
	v, ok := args[p]
	if !ok || v == nil {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("parameter %s is not of type string", p)
	}
	return s, nil
}

// unknownArgument returns an error naming the first argument, in sorted
// order, that is not one of valid.
func unknownArgument(args map[string]any, valid []string) error {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(valid, k) {
			return fmt.Errorf("unknown argument %q; valid arguments: %s", k, strings.Join(valid, ", "))
		}
	}
	return nil
}
