package filter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compiledSchema is EnvelopeSchema, compiled once, with formats asserted.
var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(EnvelopeSchema()))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("envelope.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("envelope.schema.json")
})

// envelopeError returns why env, an Envelope or any value whose JSON form
// is one, does not fit EnvelopeSchema, or nil.
func envelopeError(env any) error {
	s, err := compiledSchema()
	if err != nil {
		return fmt.Errorf("the envelope schema does not compile: %w", err)
	}
	b, err := json.Marshal(env)
	if err != nil {
		return fmt.Errorf("the envelope cannot be encoded: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("the envelope is not JSON: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("the envelope does not fit the schema: %v\nenvelope: %s", err, b)
	}
	return nil
}

// checkEnvelope fails t unless env fits EnvelopeSchema.
func checkEnvelope(t testing.TB, env any) {
	t.Helper()
	if err := envelopeError(env); err != nil {
		t.Error(err)
	}
}
