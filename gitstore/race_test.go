//go:build race

package gitstore

// raceDetector is set when the tests run under the race detector, whose
// instrumentation allocates beside the code it watches.
const raceDetector = true
