package gitstore

import "context"

// ReadHistoriesAsLong makes s read every history through git's processes,
// as it reads a long one, so that tests hold both readers to one result.
func ReadHistoriesAsLong(s *Store) { s.longReads = true }

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
