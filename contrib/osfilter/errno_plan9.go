//go:build plan9

package osfilter

// Plan 9 has no errno values: its network and file errors are text.

func connRefused(error) bool { return false }
func connReset(error) bool   { return false }
func brokenPipe(error) bool  { return false }
func notEmpty(error) bool    { return false }
