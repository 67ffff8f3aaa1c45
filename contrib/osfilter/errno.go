//go:build !plan9

package osfilter

import (
	"errors"
	"syscall"
)

// connRefused reports whether err holds ECONNREFUSED: nothing listens
// where the tool connected.
func connRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// connReset reports whether err holds ECONNRESET or ECONNABORTED: the peer
// or the network ended the connection.
func connReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED)
}

// notEmpty reports whether err holds ENOTEMPTY, which errors.Is also
// reports as fs.ErrExist.
func notEmpty(err error) bool { return errors.Is(err, syscall.ENOTEMPTY) }
