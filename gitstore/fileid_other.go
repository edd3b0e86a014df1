//go:build !unix

package gitstore

import "io/fs"

// fileIdentity is "-" where files have no device and inode: the size and
// modification time name the file alone.
func fileIdentity(fs.FileInfo) string { return "-" }
