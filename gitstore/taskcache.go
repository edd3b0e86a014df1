package gitstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"git-reason/record"
)

// taskCacheMagic starts every task cache file; its number changes
// whenever the cache's shape or meaning changes. Version 3: every record
// in it passed record.ReadStored; records are length-prefixed.
const taskCacheMagic = "git-reason task cache 3 "

// taskCache is a task's records/ tree at one head, with each record's
// JSON: .git/reason/tasks/<task>.records. Reading a task from it costs one
// small file instead of a walk through go-git's packs, whose index go-git
// loads whole, once per process. The ref is the truth: the cache is used
// only when its head is the ref's; otherwise the head's tree is read from
// git and only the records the cache lacks are read as blobs.
//
// The file is a line "git-reason task cache 3 <head>", then per entry a
// line "<name> <blob> <length>" and the record's <length> bytes of JSON
// and a newline: it is read and written without scanning the records'
// JSON as a whole (each record is parsed once, by itself). A file that
// does not parse exactly is no cache.
type taskCache struct {
	Head    string
	Entries []cacheEntry // in tree order

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
	Name   string
	Blob   string
	Record []byte
}

func (s *Store) taskCachePath(task string) string {
	return filepath.Join(s.Repo.CommonDir, "reason", "tasks", task+".records")
}

func (s *Store) readTaskCache(task string) *taskCache {
	data, err := os.ReadFile(s.taskCachePath(task))
	if err != nil {
		return nil
	}
	return parseTaskCache(data)
}

// parseTaskCache reads a cache file, nil when it is not exactly one.
func parseTaskCache(data []byte) *taskCache {
	line, rest, ok := bytes.Cut(data, []byte{'\n'})
	head, found := bytes.CutPrefix(line, []byte(taskCacheMagic))
	if !ok || !found || len(head) != 40 || !isHex(string(head)) {
		return nil
	}
	c := &taskCache{Head: string(head)}
	for len(rest) > 0 {
		line, rest, ok = bytes.Cut(rest, []byte{'\n'})
		f := bytes.Fields(line)
		if !ok || len(f) != 3 || len(f[1]) != 40 || !isHex(string(f[1])) {
			return nil
		}
		n, err := strconv.Atoi(string(f[2]))
		if err != nil || n < 0 || n >= len(rest) || rest[n] != '\n' {
			return nil
		}
		c.Entries = append(c.Entries, cacheEntry{Name: string(f[0]), Blob: string(f[1]), Record: rest[:n:n]})
		rest = rest[n+1:]
	}
	return c
}

// writeTaskCache saves the cache; one that cannot be written is rebuilt
// next time.
func (s *Store) writeTaskCache(task string, c *taskCache) {
	size := len(taskCacheMagic) + 41
	for _, e := range c.Entries {
		size += len(e.Name) + len(e.Blob) + len(e.Record) + 16
	}
	buf := make([]byte, 0, size)
	buf = append(append(append(buf, taskCacheMagic...), c.Head...), '\n')
	for _, e := range c.Entries {
		if strings.ContainsAny(e.Name, " \t\r\n\v\f") {
			return // not a name the file can hold: no cache
		}
		buf = append(append(append(append(buf, e.Name...), ' '), e.Blob...), ' ')
		buf = append(strconv.AppendInt(buf, int64(len(e.Record)), 10), '\n')
		buf = append(append(buf, e.Record...), '\n')
	}
	_ = writeFileAtomic(s.taskCachePath(task), buf)
}

// loadTask returns the task's tree entries and records at head, from the
// cache when it holds that head, else from git (reusing every record the
// cache has by blob), refreshing the cache.
func (s *Store) loadTask(task, head string) (*taskCache, []*record.Record, error) {
	if c := s.mem.get(task, head); c != nil {
		return c, c.copyRecords(), nil
	}
	c := s.readTaskCache(task)
	if c != nil && c.Head == head {
		if c.parse() == nil {
			s.mem.put(task, c)
			return c, c.copyRecords(), nil
		}
		c = nil // a damaged file: nothing in it is reused
	}
	c, err := s.readTask(task, head, c)
	if err == nil {
		err = c.parse()
	}
	if err != nil && c != nil {
		// A record reused from a stale, damaged file: read them all.
		if c, err = s.readTask(task, head, nil); err == nil {
			err = c.parse()
		}
	}
	if err != nil {
		return nil, nil, err
	}
	s.writeTaskCache(task, c)
	s.mem.put(task, c)
	return c, c.copyRecords(), nil
}

// readTask reads the entries of head's records/ tree, taking the JSON of
// each record old holds (by name and blob) from old and reading and
// checking every other record from git.
func (s *Store) readTask(task, head string, old *taskCache) (*taskCache, error) {
	known := map[string][]byte{}
	if old != nil {
		for _, e := range old.Entries {
			known[e.Name+"\x00"+e.Blob] = e.Record
		}
	}
	tree, err := s.recordsTree(plumbing.NewHash(head))
	if err != nil {
		return nil, err
	}
	c := &taskCache{Head: head, Entries: make([]cacheEntry, 0, len(tree.Entries))}
	for _, e := range tree.Entries {
		raw, ok := known[e.Name+"\x00"+e.Hash.String()]
		if !ok {
			data, err := s.recordBlob(e)
			if err != nil {
				return nil, err
			}
			if _, err := record.ReadStored(task, e.Name, data); err != nil {
				return nil, fmt.Errorf("%s/%w", RecordsDir, err)
			}
			raw = data
		}
		c.Entries = append(c.Entries, cacheEntry{Name: e.Name, Blob: e.Hash.String(), Record: raw})
	}
	return c, nil
}

// parse fills in recs from the entries' JSON.
func (c *taskCache) parse() error {
	recs := make([]*record.Record, len(c.Entries))
	all := make([]record.Record, len(c.Entries))
	for i, e := range c.Entries {
		if err := json.Unmarshal(e.Record, &all[i]); err != nil {
			return fmt.Errorf("%s/%s: parse record: %w", RecordsDir, e.Name, err)
		}
		recs[i] = &all[i]
	}
	c.recs = recs
	return nil
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
