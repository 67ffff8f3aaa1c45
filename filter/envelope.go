package filter

import (
	_ "embed" // the envelope's JSON Schema
	"encoding/json"
	"errors"
	"fmt"
)

//go:embed envelope.schema.json
var envelopeSchema []byte

// EnvelopeSchema returns the JSON Schema (draft 2020-12) of the envelope's
// JSON form, version EnvelopeVersion: the contract a program reading
// _meta[MetaKey] can rely on. The slice is a fresh copy.
func EnvelopeSchema() []byte {
	return append([]byte(nil), envelopeSchema...)
}

// ErrNoEnvelope is returned by ReadEnvelope for a _meta without an
// envelope: the result is not a failure that mcperr handled.
var ErrNoEnvelope = errors.New("mcperr: no error envelope in _meta")

// ReadEnvelope returns the envelope in meta, the _meta of a tool result, as
// a client of either SDK received it (decoded JSON) or as a server built it
// (an Envelope). It returns ErrNoEnvelope if meta has none, and an error
// that says why if the envelope under MetaKey cannot be read as one.
// Unknown fields are ignored, so envelopes of a later version with new
// optional fields read too; check Version before relying on a field that a
// later version may change.
//
// The adapters' EnvelopeOf functions read it from their SDK's result type.
func ReadEnvelope(meta map[string]any) (*Envelope, error) {
	v, ok := meta[MetaKey]
	if !ok || v == nil {
		return nil, ErrNoEnvelope
	}
	switch e := v.(type) {
	case *Envelope:
		c := *e
		return &c, nil
	case Envelope:
		return &e, nil
	}
	var raw []byte
	switch e := v.(type) {
	case json.RawMessage:
		raw = e
	case []byte:
		raw = e
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("mcperr: the error envelope cannot be encoded: %w", err)
		}
		raw = b
	}
	var env Envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("mcperr: the error envelope cannot be read: %w", err)
	}
	if !env.Error || env.Code == "" {
		return nil, errors.New(`mcperr: the error envelope has no "error": true or no code`)
	}
	return &env, nil
}
