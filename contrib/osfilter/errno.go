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

// brokenPipe reports whether err holds EPIPE: a write after the other end
// had closed, a connection's peer or a pipe's reader.
func brokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }

// notEmpty reports whether err holds ENOTEMPTY, which errors.Is also
// reports as fs.ErrExist.
func notEmpty(err error) bool { return errors.Is(err, syscall.ENOTEMPTY) }
