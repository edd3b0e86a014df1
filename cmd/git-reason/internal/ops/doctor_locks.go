package ops

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"git-reason/record"
)

// staleLockAge is how old a lock file must be for doctor to name it: a
// writer holds one for milliseconds, and git reason waits at most
// git.Wait (10 s) for one, so a lock a minute old was most likely left
// by a command that was killed, as git leaves one.
const staleLockAge = time.Minute

// staleLocks adds a finding for each lock file under the task refs and
// .git/reason/ older than staleLockAge, saying what it holds up and how
// to remove it: git reason never takes a lock from another process, so
// a lock a kill left stays until a person removes it (a task ref's
// writes wait for it and fail; a memo's are skipped, silently for a
// task's cache).
func (e *Session) staleLocks(d *Doctor, now time.Time) {
	for _, dir := range []string{
		filepath.Join(e.Repo.CommonDir, "refs", "reasoning"),
		filepath.Join(e.Repo.CommonDir, "reason"),
	} {
		_ = filepath.WalkDir(dir, func(p string, ent fs.DirEntry, err error) error {
			if err != nil || ent.IsDir() || !strings.HasSuffix(p, ".lock") {
				return nil
			}
			info, err := ent.Info()
			if err != nil || now.Sub(info.ModTime()) < staleLockAge {
				return nil
			}
			what := "a cache of git reason's is not written while it stays"
			if rel, err := filepath.Rel(e.Repo.CommonDir, p); err == nil && strings.HasPrefix(filepath.ToSlash(rel), "refs/") {
				what = "writes to " + strings.TrimSuffix(filepath.ToSlash(rel), ".lock") + " wait for it and fail"
			}
			d.Findings = append(d.Findings, Finding{Severity: "warning", Code: "stale_lock", Subject: "lock file",
				Where: record.Printable(p),
				Message: fmt.Sprintf("left %s ago, most likely by a command that was killed; %s: if no git or git reason process is running, remove it",
					now.Sub(info.ModTime()).Round(time.Second), what)})
			return nil
		})
	}
}
