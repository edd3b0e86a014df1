package gitstore

import (
	"path/filepath"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// quarantineVersion changes whenever the shape of quarantine.json changes.
const quarantineVersion = 1

// Quarantine is a fetched history of a task that pull held back: the
// local ref was left at Local, the fetched head stays on the remote's
// tracking ref, for Codes and Findings (integration.Integration's).
type Quarantine struct {
	Remote   string           `json:"remote"`
	Local    string           `json:"local"` // the local head it was held back at ("" when there was none)
	Fetched  string           `json:"fetched"`
	Codes    []string         `json:"codes"`
	Findings []record.Finding `json:"findings"`
}

func (s *Store) quarantinePath() string {
	return filepath.Join(s.Repo.CommonDir, "reason", "quarantine.json")
}

// SaveQuarantines remembers what one integration held back (held, by
// task) and forgets the tasks it brought in (cleared): quarantine.json
// under .git/reason/, for read surfaces (the Reasoning page) to say which
// tasks are quarantined and why without fetching or replaying. Pull is the
// truth: it examines every fetched head again and says the same.
func (s *Store) SaveQuarantines(held map[string]Quarantine, cleared []string) error {
	if len(held) == 0 && len(cleared) == 0 {
		return nil
	}
	f := s.readQuarantines()
	changed := false
	for _, t := range cleared {
		if _, ok := f.Tasks[t]; ok {
			changed = true
			delete(f.Tasks, t)
		}
	}
	if len(held) == 0 && !changed {
		return nil // the common pull: nothing was held back before or now
	}
	lock, err := git.TakeLock(s.quarantinePath(), lockTimeout)
	if err != nil {
		return err
	}
	f = s.readQuarantines() // again, under the lock
	for _, t := range cleared {
		delete(f.Tasks, t)
	}
	for t, q := range held {
		f.Tasks[t] = q
	}
	return commitJSON(lock, f)
}

// LoadQuarantines returns what SaveQuarantines remembered, by task.
func (s *Store) LoadQuarantines() map[string]Quarantine {
	return s.readQuarantines().Tasks
}

func (s *Store) readQuarantines() taskFile[Quarantine] {
	return readTaskFile[Quarantine](s.quarantinePath(), quarantineVersion)
}
