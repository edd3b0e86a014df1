package git

import "time"

// Recent reports whether a file's modification time mod is too close to
// now for its stat to stand for its content, as git's racy-git rule has
// it: a write within the same clock tick as mod would leave the time
// unchanged. A tick is under 100 ms on the usual file systems; a time of
// a whole second may be one that a file system keeping times to the
// second (ext3, ext4 with 128-byte inodes, HFS+) or to two (FAT) rounded
// down, so it is recent for that long.
func Recent(mod, now time.Time) bool {
	recent := 100 * time.Millisecond
	if mod.Nanosecond() == 0 {
		recent = 2*time.Second + recent
	}
	return now.Sub(mod) < recent
}
