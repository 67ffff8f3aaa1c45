package filter

import (
	"crypto/rand"
	"encoding/hex"
)

// newRef returns a new reference id: 16 lowercase hex digits holding 64
// random bits from crypto/rand, short enough to read aloud and unique in
// practice at millions of errors a day.
func newRef() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error.
	return hex.EncodeToString(b[:])
}
