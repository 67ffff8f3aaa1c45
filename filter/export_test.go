package filter

// For the tests of package filter_test: the schema check of every envelope
// a test sees.
var (
	CheckEnvelope = checkEnvelope
	EnvelopeError = envelopeError
)
