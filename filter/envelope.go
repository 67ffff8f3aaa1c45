package filter

import _ "embed" // the envelope's JSON Schema

//go:embed envelope.schema.json
var envelopeSchema []byte

// EnvelopeSchema returns the JSON Schema (draft 2020-12) of the Envelope's
// JSON form, version 1: the contract a program reading
// _meta[MetaKey] can rely on. The slice is a fresh copy.
func EnvelopeSchema() []byte {
	return append([]byte(nil), envelopeSchema...)
}
