//go:build !race

package mcpgo_test

// raceEnabled is true when the tests run under the race detector, which
// slows calls down about tenfold: the load tests then make fewer calls.
const raceEnabled = false
