package gitstore

import (
	"errors"
	"os"
	"runtime/debug"
	"testing"
	"time"
)

// fileInfo is the size and time of a program file.
type fileInfo struct {
	os.FileInfo
	size int64
	mod  time.Time
}

func (f fileInfo) Size() int64        { return f.size }
func (f fileInfo) ModTime() time.Time { return f.mod }

// Two builds of one commit with different changes to its sources name
// different releases (their program files differ), so that neither takes
// the other's caches and verdicts; a build of the commit as it is names
// the commit alone, whatever its file, and so does a changed build whose
// program file cannot be read.
func TestReleaseOfChangedBuilds(t *testing.T) {
	build := func(modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: modified}}}
	}
	file := func(size int64, sec int64) func() (os.FileInfo, error) {
		return func() (os.FileInfo, error) { return fileInfo{size: size, mod: time.Unix(sec, 0)}, nil }
	}
	none := func() (os.FileInfo, error) { return nil, errors.New("no such file") }
	a, b := releaseOf(build("true"), file(100, 1)), releaseOf(build("true"), file(100, 2))
	if a == b {
		t.Errorf("two changed builds of one commit name one release, %q", a)
	}
	if c := releaseOf(build("true"), file(101, 1)); c == a {
		t.Errorf("changed builds of different sizes name one release, %q", a)
	}
	if x, y := releaseOf(build("false"), file(100, 1)), releaseOf(build("false"), file(200, 2)); x != y || x != "(devel) 0123abcd false" {
		t.Errorf("builds of the commit as it is: %q and %q, want both the commit alone", x, y)
	}
	if n := releaseOf(build("true"), none); n != "(devel) 0123abcd true" {
		t.Errorf("a changed build without a program file: %q", n)
	}
}
