//go:build !unix

package neutrality

import "os"

// openNoFollow opens a file for reading. Without O_NOFOLLOW a symbolic link
// is followed; git on these systems rarely checks links out as links.
func openNoFollow(name string) (*os.File, error) { return os.Open(name) }

func isSymlinkErr(error) bool { return false }
