//go:build race

package emulator

// raceEnabled is true when the tests run with the race detector, which
// slows generation down several times.
const raceEnabled = true
