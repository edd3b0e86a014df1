package gitstore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"git-reason/record"
)

// indexVersion changes whenever the cache's shape or meaning changes; a
// cache of another version is rebuilt.
const indexVersion = 2

// Index caches, per task, what reads across every task need: the task's
// status, its standing conclusions and its consultation records (whose
// outcomes feed the circuits). It lives in .git/reason/index.json. The refs
// are the only truth: every entry is keyed by its task's head, and an entry
// whose head differs from the ref (a new record, a ref fetched by plain git)
// is rebuilt from the ref before use; a missing or unreadable cache is
// rebuilt whole. Index implements record.Index.
type Index struct{ Store *Store }

type indexFile struct {
	Version int                    `json:"version"`
	Tasks   map[string]*IndexEntry `json:"tasks"`
}

// IndexEntry is what the cache knows of one task at one head.
type IndexEntry struct {
	Head          string            `json:"head"`
	Status        record.Status     `json:"status"`
	Standing      []record.Standing `json:"standing"`
	Consultations []record.Record   `json:"consultations,omitempty"`
}

func (x Index) path() string { return filepath.Join(x.Store.Repo.CommonDir, "reason", "index.json") }

// Tasks returns the cache entry of every task, brought up to date with the
// refs, sorted by task name.
func (x Index) Tasks(ctx context.Context) ([]record.TaskHead, map[string]*IndexEntry, error) {
	return x.tasks(ctx, "")
}

// tasks is Tasks, except that the entry of task skip is not brought up to
// date (it may be stale or missing): the writer has that task in hand
// already, and deriving it again would double the cost of every append.
func (x Index) tasks(ctx context.Context, skip string) ([]record.TaskHead, map[string]*IndexEntry, error) {
	tasks, err := x.Store.Tasks(ctx)
	if err != nil {
		return nil, nil, err
	}
	cache := x.load()
	fresh := &indexFile{Version: indexVersion, Tasks: make(map[string]*IndexEntry, len(tasks))}
	changed := len(cache.Tasks) != len(tasks)
	for _, t := range tasks {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		e, ok := cache.Tasks[t.Task]
		if t.Task == skip {
			if ok && e != nil {
				fresh.Tasks[t.Task] = e // stale or not, keyed by its own head
			}
			continue
		}
		if !ok || e == nil || e.Head != t.Head {
			changed = true
			if e, err = x.Store.entry(t); err != nil {
				return nil, nil, fmt.Errorf("%s does not read (see 'git reason doctor'): %w", TaskRef(t.Task), err)
			}
		}
		fresh.Tasks[t.Task] = e
	}
	if changed {
		x.save(fresh) // a cache that cannot be written is rebuilt next time
	}
	return tasks, fresh.Tasks, nil
}

// Standing implements record.Index.
func (x Index) Standing(ctx context.Context, key, skip string) (*record.Standing, error) {
	tasks, entries, err := x.tasks(ctx, skip)
	if err != nil {
		return nil, err
	}
	var best *record.Standing
	for _, t := range tasks {
		if t.Task == skip {
			continue
		}
		for _, s := range entries[t.Task].Standing {
			if s.SubjectKey == key {
				s := s
				best = &s
			}
		}
	}
	return best, nil
}

// Consultations returns every consultation record that origin wrote, in
// any task.
func (x Index) Consultations(ctx context.Context, origin string) ([]record.Record, error) {
	tasks, entries, err := x.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	var out []record.Record
	for _, t := range tasks {
		for _, r := range entries[t.Task].Consultations {
			if r.Origin == origin {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

func (x Index) load() indexFile {
	var f indexFile
	data, err := os.ReadFile(x.path())
	if err != nil || json.Unmarshal(data, &f) != nil || f.Version != indexVersion {
		return indexFile{}
	}
	return f
}

func (x Index) save(f *indexFile) {
	data, err := json.Marshal(f)
	if err != nil {
		return
	}
	_ = writeFileAtomic(x.path(), data)
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it into place, so a reader sees the old or the new file, never a part.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// entry reads and derives one task at a known head.
func (s *Store) entry(t record.TaskHead) (*IndexEntry, error) {
	recs, err := s.ReadCommit(t.Head)
	if err != nil {
		return nil, err
	}
	st, err := record.Derive(t.Task, recs)
	if err != nil {
		return nil, err
	}
	e := &IndexEntry{Head: t.Head, Status: st.Summarize(), Standing: st.Standing()}
	for _, r := range recs {
		if r.Kind == record.KindConsultation {
			e.Consultations = append(e.Consultations, *r)
		}
	}
	return e, nil
}
