package gitstore

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"git-reason/record"
)

// indexVersion changes whenever the cache's shape or meaning changes; a
// cache of another version is rebuilt.
const indexVersion = 1

// Index is a record.Index cached under .git/reason/standing.json. The refs
// are the only truth: every entry is keyed by its task's head, and an entry
// whose head differs from the ref (a new record, a fetch by plain git) is
// rebuilt from the ref before use. A missing or unreadable cache is rebuilt.
type Index struct{ Store *Store }

type indexFile struct {
	Version int                   `json:"version"`
	Tasks   map[string]indexEntry `json:"tasks"`
}

type indexEntry struct {
	Head     string            `json:"head"`
	Standing []record.Standing `json:"standing"`
}

func (x Index) path() string { return filepath.Join(x.Store.Repo.CommonDir, "reason", "standing.json") }

// Standing implements record.Index.
func (x Index) Standing(ctx context.Context, key, skip string) (*record.Standing, error) {
	tasks, err := x.Store.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	cache := x.load()
	fresh := indexFile{Version: indexVersion, Tasks: make(map[string]indexEntry, len(tasks))}
	changed := len(cache.Tasks) != len(tasks)
	var best *record.Standing
	for _, t := range tasks {
		e, ok := cache.Tasks[t.Task]
		if !ok || e.Head != t.Head {
			changed = true
			st, err := x.Store.derive(ctx, t)
			if err != nil {
				return nil, err
			}
			e = indexEntry{Head: t.Head, Standing: st.Standing()}
		}
		fresh.Tasks[t.Task] = e
		if t.Task == skip {
			continue
		}
		for _, s := range e.Standing {
			if s.SubjectKey == key {
				s := s
				best = &s
			}
		}
	}
	if changed {
		x.save(&fresh) // a cache that cannot be written is rebuilt next time
	}
	return best, nil
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

// derive reads and derives one task at a known head.
func (s *Store) derive(_ context.Context, t record.TaskHead) (*record.State, error) {
	recs, err := s.ReadCommit(t.Head)
	if err != nil {
		return nil, err
	}
	return record.Derive(t.Task, recs)
}
