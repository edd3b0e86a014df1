package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
)

// The commits this clone's writer made are listed, one per line, in
// .git/reason/written: what "written in this clone" means when a standing
// conclusion is weighed for reuse. A record's origin field cannot say it:
// anyone who has seen this clone's records can copy it into a forged one,
// while this file is written by nothing that fetches. Losing it loses
// only reuse of unsigned local conclusions (a fresh review is asked).

func (s *Store) writtenPath() string {
	return filepath.Join(s.Repo.CommonDir, "reason", "written")
}

// noteWritten appends a commit the writer made; failing to note it costs
// only its reuse unsigned.
func (s *Store) noteWritten(commit string) {
	path := s.writtenPath()
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write([]byte(commit + "\n"))
}

// WrittenHere returns the set of commits this clone's writer made.
func (s *Store) WrittenHere() map[string]bool {
	data, err := os.ReadFile(s.writtenPath())
	out := map[string]bool{}
	if err != nil {
		return out
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) > 0 {
			out[string(line)] = true
		}
	}
	return out
}
