//go:build !race

package filter_test

// raceEnabled is set when the race detector is on, which changes how much
// code allocates.
const raceEnabled = false
