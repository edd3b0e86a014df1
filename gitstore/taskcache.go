package gitstore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"git-reason/record"
)

// taskCacheVersion changes whenever the task cache's shape changes.
// Version 2: every record in it passed record.ReadStored.
const taskCacheVersion = 2

// taskCache is a task's records/ tree at one head, with each record's
// JSON: .git/reason/tasks/<task>.json. Reading a task from it costs one
// small file instead of a walk through go-git's packs, whose index go-git
// loads whole, once per process. The ref is the truth: the cache is used
// only when its head is the ref's; otherwise the head's tree is read from
// git and only the records the cache lacks are read as blobs.
type taskCache struct {
	Version int          `json:"version"`
	Head    string       `json:"head"`
	Entries []cacheEntry `json:"entries"` // in tree order

	// recs are the entries' records parsed, in the same order, once a
	// cache is held in memory (never changed afterwards: loadTask hands
	// out copies).
	recs []*record.Record
}

// memTasks is how many tasks a Store keeps in memory, parsed, beside the
// files: the tasks a process (a command, a running MCP server) is working
// on, so that a write does not read and parse back the task it just
// loaded or wrote. The file and the ref stay the truth: an entry is used
// only while its head is the ref's.
const memTasks = 64

// memCache is a Store's in-memory task caches, by task.
type memCache struct {
	mu sync.Mutex
	m  map[string]*taskCache
}

func (m *memCache) get(task, head string) *taskCache {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.m[task]; c != nil && c.Head == head {
		return c
	}
	return nil
}

func (m *memCache) put(task string, c *taskCache) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]*taskCache{}
	}
	if _, ok := m.m[task]; !ok && len(m.m) >= memTasks {
		for t := range m.m { // any one: the map stays bounded
			delete(m.m, t)
			break
		}
	}
	m.m[task] = c
}

type cacheEntry struct {
	Name   string          `json:"name"`
	Blob   string          `json:"blob"`
	Record json.RawMessage `json:"record"`
}

func (s *Store) taskCachePath(task string) string {
	return filepath.Join(s.Repo.CommonDir, "reason", "tasks", task+".json")
}

func (s *Store) readTaskCache(task string) *taskCache {
	var c taskCache
	data, err := os.ReadFile(s.taskCachePath(task))
	if err != nil || json.Unmarshal(data, &c) != nil || c.Version != taskCacheVersion {
		return nil
	}
	return &c
}

// writeTaskCache saves the cache; one that cannot be written is rebuilt
// next time.
func (s *Store) writeTaskCache(task string, c *taskCache) {
	c.Version = taskCacheVersion
	if data, err := json.Marshal(c); err == nil {
		_ = writeFileAtomic(s.taskCachePath(task), data)
	}
}

// loadTask returns the task's tree entries and records at head, from the
// cache when it holds that head, else from git (reusing every record the
// cache has by blob), refreshing the cache.
func (s *Store) loadTask(task, head string) (*taskCache, []*record.Record, error) {
	if c := s.mem.get(task, head); c != nil {
		return c, c.copyRecords(), nil
	}
	c := s.readTaskCache(task)
	if c == nil || c.Head != head {
		known := map[string]json.RawMessage{}
		if c != nil {
			for _, e := range c.Entries {
				known[e.Name+"\x00"+e.Blob] = e.Record
			}
		}
		tree, err := s.recordsTree(plumbing.NewHash(head))
		if err != nil {
			return nil, nil, err
		}
		c = &taskCache{Head: head, Entries: make([]cacheEntry, 0, len(tree.Entries))}
		for _, e := range tree.Entries {
			raw, ok := known[e.Name+"\x00"+e.Hash.String()]
			if !ok {
				data, err := s.recordBlob(e)
				if err != nil {
					return nil, nil, err
				}
				if _, err := record.ReadStored(task, e.Name, data); err != nil {
					return nil, nil, fmt.Errorf("%s/%w", RecordsDir, err)
				}
				raw = data
			}
			c.Entries = append(c.Entries, cacheEntry{Name: e.Name, Blob: e.Hash.String(), Record: raw})
		}
		s.writeTaskCache(task, c)
	}
	recs := make([]*record.Record, 0, len(c.Entries))
	for _, e := range c.Entries {
		var rec record.Record
		if err := json.Unmarshal(e.Record, &rec); err != nil {
			return nil, nil, fmt.Errorf("%s/%s: parse record: %w", RecordsDir, e.Name, err)
		}
		recs = append(recs, &rec)
	}
	c.recs = recs
	s.mem.put(task, c)
	return c, c.copyRecords(), nil
}

// copyRecords returns copies of the cache's records, which callers may
// change without changing the cache.
func (c *taskCache) copyRecords() []*record.Record {
	out := make([]*record.Record, len(c.recs))
	for i, r := range c.recs {
		cp := *r
		out[i] = &cp
	}
	return out
}

// treeEntries turns cache entries back into tree entries.
func (c *taskCache) treeEntries() []object.TreeEntry {
	out := make([]object.TreeEntry, 0, len(c.Entries)+1)
	for _, e := range c.Entries {
		out = append(out, object.TreeEntry{Name: e.Name, Mode: filemode.Regular, Hash: plumbing.NewHash(e.Blob)})
	}
	return out
}

// cacheAppended records the task at its new head, prev plus the entry of
// the record just appended, in the file and in memory (the record as a
// later read parses it from the entry).
func (s *Store) cacheAppended(task, head string, prev *taskCache, e cacheEntry) {
	next := &taskCache{Head: head, Entries: make([]cacheEntry, 0, len(prev.Entries)+1),
		recs: make([]*record.Record, 0, len(prev.Entries)+1)}
	var cp record.Record
	if err := json.Unmarshal(e.Record, &cp); err != nil {
		return // not cached: the next read takes it from git
	}
	placed := false
	for i, old := range prev.Entries {
		if !placed && e.Name < old.Name {
			next.Entries, next.recs = append(next.Entries, e), append(next.recs, &cp)
			placed = true
		}
		next.Entries, next.recs = append(next.Entries, old), append(next.recs, prev.recs[i])
	}
	if !placed {
		next.Entries, next.recs = append(next.Entries, e), append(next.recs, &cp)
	}
	s.writeTaskCache(task, next)
	s.mem.put(task, next)
}
