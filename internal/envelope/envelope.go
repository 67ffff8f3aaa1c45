// Package envelope reads a failure's filter.Envelope back from the _meta
// of a tool result, for the adapters' EnvelopeOf functions.
package envelope

import (
	"encoding/json"

	"github.com/mcperr/mcperr/filter"
)

// Read returns the envelope in meta, the _meta of a tool result as a client
// received it (decoded JSON) or as a server built it, and whether it is a
// readable one: an object with "error": true and a code. Unknown fields are
// ignored, so envelopes of a later version with new optional fields read too.
func Read(meta map[string]any) (filter.Envelope, bool) {
	var env filter.Envelope
	switch v := meta[filter.MetaKey].(type) {
	case nil: // the zero envelope, refused below
	case *filter.Envelope:
		if v != nil {
			env = *v
		}
	case filter.Envelope:
		env = v
	default:
		b, err := json.Marshal(v)
		if err != nil || json.Unmarshal(b, &env) != nil {
			return filter.Envelope{}, false
		}
	}
	if !env.Error || env.Code == "" {
		return filter.Envelope{}, false
	}
	return env, true
}
