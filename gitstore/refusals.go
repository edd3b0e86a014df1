package gitstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// refusalsVersion changes whenever the shape of refusals.json changes.
const refusalsVersion = 1

// Refusal is a record that a merge of two histories made inadmissible. It
// stays in the history (nothing is dropped); a person settles it with a
// record written after the merge, whose clock is therefore above
// MergeClock.
type Refusal struct {
	record.Finding
	MergeClock int64 `json:"merge_clock"` // the highest clock in the merge
}

type refusalsEntry struct {
	Head     string    `json:"head"`
	Refusals []Refusal `json:"refusals"`
}

func (s *Store) refusalsPath() string {
	return filepath.Join(s.Repo.CommonDir, "reason", "refusals.json")
}

func (s *Store) readRefusals() taskFile[refusalsEntry] {
	return readTaskFile[refusalsEntry](s.refusalsPath(), refusalsVersion)
}

// SaveRefusals remembers what verification of task at head found the
// merges in its history refused (replacing what was remembered for the
// task), for status to show until a person settles them. Pull calls it
// for every task whose ref it moved. The file is a convenience kept under
// .git/reason/: `git reason verify` finds the same from the refs alone.
func (s *Store) SaveRefusals(task, head string, found []record.Finding) error {
	lock, err := git.TakeLock(s.refusalsPath(), lockTimeout)
	if err != nil {
		return err
	}
	f := s.readRefusals()
	if _, had := f.Tasks[task]; !had && len(found) == 0 {
		// Nothing remembered, nothing to remember: the file stays as it
		// is (a pull of many tasks would rewrite it for each).
		return lock.Abandon()
	}
	delete(f.Tasks, task)
	if len(found) > 0 {
		e := refusalsEntry{Head: head}
		clocks := map[string]int64{}
		for _, fd := range found {
			c, ok := clocks[fd.Commit]
			if !ok {
				c = s.maxClock(fd.Commit)
				clocks[fd.Commit] = c
			}
			e.Refusals = append(e.Refusals, Refusal{Finding: fd, MergeClock: c})
		}
		f.Tasks[task] = e
	}
	return commitJSON(lock, f)
}

// LoadRefusals returns what SaveRefusals remembered, by task.
func (s *Store) LoadRefusals() map[string][]Refusal {
	out := map[string][]Refusal{}
	for t, e := range s.readRefusals().Tasks {
		out[t] = e.Refusals
	}
	return out
}

// maxClock is the highest clock among a commit's records, read from the
// tree entry names (<clock>-<kind>-<id>.json).
func (s *Store) maxClock(commit string) int64 {
	tree, err := s.recordsTree(plumbing.NewHash(commit))
	if err != nil {
		return 0
	}
	var max int64
	for _, e := range tree.Entries {
		prefix, _, _ := strings.Cut(e.Name, "-")
		if c, err := strconv.ParseInt(prefix, 10, 64); err == nil && c > max {
			max = c
		}
	}
	return max
}

// taskFile is a JSON file under .git/reason/ of one entry a task
// (refusals.json, quarantine.json).
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
