// Package stdimports holds a tool's work function in a file that imports
// only the standard library: the fix's imports of mcperr go in a group of
// their own after it, as goimports would put them.
package stdimports

import (
	"context"
	"errors"
	"os"
)

type getArgs struct{ Path string }

type file struct{ Size int64 }

func getFile(ctx context.Context, args getArgs) (*file, error) {
	if args.Path == "" {
		return nil, errors.New("path is required") // want `a message for the model returned as a plain error`
	}
	fi, err := os.Stat(args.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return &file{Size: fi.Size()}, nil
}
