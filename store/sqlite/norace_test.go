//go:build !race

package sqlite

// raceEnabled tells that the race detector is on: the measurements run
// smaller (it makes each report several times slower).
const raceEnabled = false
