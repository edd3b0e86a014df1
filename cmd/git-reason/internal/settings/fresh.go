package settings

import (
	"os"
	"time"

	rungit "git-reason/gitstore/git"
)

// watched is one file a reading depends on, as it was when read (fi is
// nil when it did not exist). recent: its time was too close to the
// reading (git.Recent) for a later write in the same clock tick to
// change it.
type watched struct {
	path   string
	fi     os.FileInfo
	recent bool
}

// Watch is the state of some files as they were when something was read
// from them: a resident process asks Changed before it uses what it read
// (the settings, the advisor declarations) and reads again when they
// changed.
type Watch []watched

// WatchFiles records the state of each of paths (absent ones too), once
// each.
func WatchFiles(paths ...string) Watch {
	seen := map[string]bool{}
	var out Watch
	now := time.Now()
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		fi, _ := os.Stat(p)
		out = append(out, watched{path: p, fi: fi, recent: fi != nil && rungit.Recent(fi.ModTime(), now)})
	}
	return out
}

// Changed reports whether a file this reading depends on was created,
// removed or written since (a long-running process then loads the
// settings again). It costs a stat per file, a few microseconds, where
// reading again costs a git process. git config writes a file by renaming
// a new one over it, so the file's identity changes even when its size
// and time do not. What it cannot see: a system file that was absent or
// empty when read, a file named by GIT_CONFIG_GLOBAL or GIT_CONFIG_SYSTEM
// that was absent then, and a change of the process's own environment.
func (s *Settings) Changed() bool { return s.files.Changed() }

// Changed reports whether one of the files was created, removed or
// written since WatchFiles (see Settings.Changed).
func (ws Watch) Changed() bool {
	now := time.Now()
	for _, w := range ws {
		fi, err := os.Stat(w.path)
		switch {
		case err != nil || w.fi == nil:
			if (err == nil) != (w.fi != nil) {
				return true
			}
		case !os.SameFile(fi, w.fi) || !fi.ModTime().Equal(w.fi.ModTime()) || fi.Size() != w.fi.Size():
			return true
		case w.recent && !rungit.Recent(fi.ModTime(), now):
			// Read in the clock tick of its last write, it may have been
			// written again in that tick, in place and to the same size,
			// which its stat cannot show: once the tick is surely over,
			// it is read again.
			return true
		}
	}
	return false
}
