//go:build !unix

package ops

// ownerOf knows no owners here: git's check on this system asks the
// operating system in ways this build does not.
func ownerOf(string) (int, bool) { return 0, false }
