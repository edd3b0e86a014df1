package gitstore

import (
	"bytes"
	"context"
	"strings"
)

// ReadHistoriesAsLong makes s read every history through git's processes,
// as it reads a long one, so that tests hold both readers to one result.
func ReadHistoriesAsLong(s *Store) { s.longReads = true }

// ReadPacksThroughGit makes s read packed objects through git cat-file
// first, as it does in a repository whose packs are large (packreads.go),
// however small they are.
func ReadPacksThroughGit(s *Store) { s.packsViaGit = true }

// ReplayedFrom reads the history of head as a replay with the heads rem
// remembers of task does, and returns how many commits it would replay and
// from how many remembered heads.
func ReplayedFrom(s *Store, rem *Remembered, task, head string) (commits, bases int, err error) {
	stop := map[string]bool{}
	for _, h := range rem.Heads(task) {
		stop[h] = true
	}
	h, err := s.readHistory(context.Background(), head, stop)
	if err != nil {
		return 0, 0, err
	}
	return len(h.commits), len(h.bases), nil
}

// ResignSavedState is a saved state file (saved.go) with every "online"
// of its records replaced by to (the same length) and signed again under
// key: what a forger holding another key would write.
func ResignSavedState(file, key []byte, task, to string) []byte {
	line, body, _ := bytes.Cut(file, []byte{'\n'})
	f := strings.Fields(string(line))
	head := f[len(f)-2]
	body = bytes.ReplaceAll(body, []byte(`"decision": "online"`), []byte(`"decision": "`+to+`"`))
	return append([]byte(savedMagic+head+" "+savedMAC(key, task, head, body)+"\n"), body...)
}
