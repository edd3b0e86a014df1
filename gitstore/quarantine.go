package gitstore

import (
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// quarantineVersion changes whenever the shape of quarantine.json changes.
const quarantineVersion = 2

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

// sealedQuarantine is a task's entry in quarantine.json: the quarantine
// and its MAC (Sealed's, under the repository key, of the task, the
// fetched head and the quarantine as JSON), so that an entry a stranger
// writes or edits (a task said held back that is not, another reason)
// is ignored rather than shown.
type sealedQuarantine struct {
	Quarantine
	MAC string `json:"mac"`
}

func (s *Store) quarantinePath() string {
	return filepath.Join(s.Repo.CommonDir, "reason", "quarantine.json")
}

// quarantineSeal is the MAC of quarantine.json's entries, nil when there
// is no key (and create is false, or one cannot be made).
func (s *Store) quarantineSeal(create bool) *Sealed {
	dir := filepath.Join(s.Repo.CommonDir, "reason")
	key, err := repoKey(dir, create)
	if err != nil || key == nil {
		return nil
	}
	return &Sealed{name: "quarantine.json", scope: "quarantine", dir: dir, key: key}
}

// sealQuarantine is the MAC of task's quarantine q.
func (m *Sealed) sealQuarantine(task string, q Quarantine) (string, bool) {
	data, err := json.Marshal(q)
	if err != nil {
		return "", false
	}
	return m.mac(task, q.Fetched, data), true
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
	seal := s.quarantineSeal(true)
	if seal == nil {
		return errors.New("quarantine: no repository key")
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
		mac, ok := seal.sealQuarantine(t, q)
		if !ok {
			lock.Abandon()
			return fmt.Errorf("quarantine of %s: does not encode", t)
		}
		f.Tasks[t] = sealedQuarantine{Quarantine: q, MAC: mac}
	}
	return commitJSON(lock, f)
}

// LoadQuarantines returns what SaveQuarantines remembered, by task: the
// entries whose MAC holds.
func (s *Store) LoadQuarantines() map[string]Quarantine {
	out := map[string]Quarantine{}
	f := s.readQuarantines()
	if len(f.Tasks) == 0 {
		return out
	}
	seal := s.quarantineSeal(false)
	if seal == nil {
		return out
	}
	for t, e := range f.Tasks {
		if mac, ok := seal.sealQuarantine(t, e.Quarantine); ok && hmac.Equal([]byte(mac), []byte(e.MAC)) {
			out[t] = e.Quarantine
		}
	}
	return out
}

// readQuarantines reads quarantine.json whole, its MACs unchecked: for
// SaveQuarantines, which keeps the others' entries as they are (one that
// does not hold is ignored by every reader).
func (s *Store) readQuarantines() taskFile[sealedQuarantine] {
	return readTaskFile[sealedQuarantine](s.quarantinePath(), quarantineVersion)
}

// taskFile is a JSON file under .git/reason/ of one entry a task
// (quarantine.json).
type taskFile[T any] struct {
	Version int          `json:"version"`
	Tasks   map[string]T `json:"tasks"`
}

// readTaskFile reads the task file at path; one that is missing, does not
// parse, or is of another version reads as an empty one of version.
func readTaskFile[T any](path string, version int) taskFile[T] {
	var f taskFile[T]
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &f) != nil || f.Version != version || f.Tasks == nil {
		return taskFile[T]{Version: version, Tasks: map[string]T{}}
	}
	return f
}

// commitJSON makes v, as JSON, the locked file's new content, or abandons
// the lock when it cannot.
func commitJSON(lock *git.Lock, v any) error {
	data, err := json.Marshal(v)
	if err == nil {
		err = lock.Commit(data, 0)
	}
	if err != nil {
		lock.Abandon()
	}
	return err
}
