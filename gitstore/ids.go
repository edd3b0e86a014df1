package gitstore

import (
	"bytes"
	"context"
	"crypto/hmac"
	"os"
	"path/filepath"
	"strings"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// The id index (.git/reason/ids/) says which tasks hold a record whose id
// starts with a given prefix, so that `show ID` derives the task that
// holds it rather than reading every task. It has two parts, each only
// appended to:
//
//   - ids/<first idShard characters of an id>: a line "<id> <task> <mac>"
//     per record, in the file of its id's first characters (a ULID's
//     first characters are its time: one file per few minutes of
//     records);
//   - ids/heads: a line "<task> <head> <mac>" per task whose records are
//     in the id files as of that head (a later line of a task replaces an
//     earlier one); rewritten with a line per task when it holds more
//     than twice as many lines as tasks.
//
// A lookup lists the task refs and brings the index up to what they are:
// for each task whose head is not the one the index has, the ids its
// head's records/ tree holds that the indexed head's does not (both trees
// read in this process: the cost of the task that moved) are appended,
// then its head; ids/current then names the task refs' header it was
// brought up to. While latest.now says the refs are still at that header
// (Store.refsNow: a stamp of packed-refs and the task refs' directories),
// a lookup lists no ref: it reads the shard alone. Each line carries an HMAC-SHA256 (the first 32 hex
// digits) under the repository key (verified.key), of the line's fields,
// and a line without a good one is not read: a task the index does not
// name for an id is a task the caller need not read only when the index
// says so under the key. It is never a source of truth: the caller
// derives each task it names from its ref and finds the record there,
// and reads every task when the index names none (a miss).
const (
	idShard   = record.MinPrefix
	idsMAC    = "git-reason ids v1\x00"
	idsHeads  = "heads"
	idsMACLen = 32
)

func (s *Store) idsDir() string { return filepath.Join(s.Repo.CommonDir, "reason", "ids") }

func idsLineMAC(key []byte, a, b string) string {
	return keyedMAC(key, idsMAC+a+"\x00"+b, nil)[:idsMACLen]
}

// idsLines is the lines of an id index file whose MAC is good, as pairs.
func idsLines(key, data []byte) [][2]string {
	var out [][2]string
	for len(data) > 0 {
		line, rest, ok := bytes.Cut(data, []byte{'\n'})
		data = rest
		f := strings.Split(string(line), " ")
		if !ok || len(f) != 3 || !hmac.Equal([]byte(f[2]), []byte(idsLineMAC(key, f[0], f[1]))) {
			continue
		}
		out = append(out, [2]string{f[0], f[1]})
	}
	return out
}

// IDTasks returns the tasks that hold a record whose id starts with
// prefix (in upper case, at least record.MinPrefix characters), as the id
// index says once brought up to the task refs; false when the index
// cannot say (no key, a file that cannot be written): the caller reads
// every task.
func (s *Store) IDTasks(ctx context.Context, prefix string) ([]string, bool) {
	key := s.memoKey()
	if key == nil || len(prefix) < idShard || strings.ContainsAny(prefix[:idShard], "/\\. \n") {
		return nil, false
	}
	dir := s.idsDir()
	// While the task refs are what they were when the index was last
	// brought up to them (the header latest.now keeps under a stamp that
	// still holds, and ids/current names), no task moved: the shard is
	// read alone, and each task it names is looked up (a task deleted
	// since its records were indexed is not named).
	now, err := s.refsNow(filepath.Dir(dir), key)
	if err != nil {
		return nil, false
	}
	if now.fresh && idsCurrent(dir, key) == digestOf(now.header) {
		return s.idsIn(dir, key, prefix, func(task string) bool {
			head, err := s.Repo.ReadRef(TaskRef(task))
			return err == nil && head != ""
		}), true
	}
	if !now.fresh {
		now.keep(filepath.Dir(dir), key, "", nil)
	}
	tasks, err := s.Tasks(ctx)
	if err != nil {
		return nil, false
	}
	headsPath := filepath.Join(dir, idsHeads)
	data, _ := os.ReadFile(headsPath)
	countShared(len(data))
	lines := idsLines(key, data)
	indexed := make(map[string]string, len(lines))
	for _, l := range lines {
		indexed[l[0]] = l[1]
	}
	var heads []byte
	skipped := false // a task not indexed: tried again by the next lookup
	shards := map[string][]byte{}
	// The first lookup of a clone indexes every task: seconds at
	// thousands, which a terminal shows as the first read's are.
	todo, done := 0, 0
	for _, t := range tasks {
		if indexed[t.Task] != t.Head {
			todo++
		}
	}
	for _, t := range tasks {
		if indexed[t.Task] == t.Head {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, false
		}
		s.Progress("Indexing record ids", done, todo)
		done++
		files, err := s.baseFiles(t.Head)
		if err != nil {
			skipped = true
			continue // not indexed: a lookup that misses reads every task
		}
		var before map[string]string
		if h := indexed[t.Task]; h != "" {
			before, _ = s.baseFiles(h) // gone (a rewritten history): every id again
		}
		for name := range files {
			if _, ok := before[name]; ok {
				continue
			}
			id := idOf(name)
			if len(id) < idShard || strings.ContainsAny(id, "/\\. \n") {
				continue
			}
			shard := strings.ToUpper(id[:idShard])
			shards[shard] = append(shards[shard], id+" "+t.Task+" "+idsLineMAC(key, id, t.Task)+"\n"...)
		}
		heads = append(heads, t.Task+" "+t.Head+" "+idsLineMAC(key, t.Task, t.Head)+"\n"...)
	}
	if todo > 0 {
		s.Progress("Indexing record ids", todo, todo)
	}
	if len(heads) > 0 {
		if git.MkdirAll(dir, 0o777) != nil {
			return nil, false
		}
		for shard, add := range shards {
			if appendCreate(filepath.Join(dir, shard), add) != nil {
				return nil, false
			}
		}
		if len(lines) > 2*len(tasks)+64 {
			// Compacted: the line of each task's current head.
			var all []byte
			for _, t := range tasks {
				all = append(all, t.Task+" "+t.Head+" "+idsLineMAC(key, t.Task, t.Head)+"\n"...)
			}
			CountWritten(len(all))
			if writeFileAtomic(headsPath, all) != nil {
				return nil, false
			}
		} else {
			CountWritten(len(heads))
			if appendCreate(headsPath, heads) != nil {
				return nil, false
			}
		}
	}
	if now.settled && !skipped && git.MkdirAll(dir, 0o777) == nil {
		// The header was taken before the refs were listed: a ref moved
		// meanwhile makes it stale, never wrongly current.
		mark := digestOf(now.header)
		_ = writeFileAtomic(filepath.Join(dir, idsCurrentFile), []byte(mark+" "+idsLineMAC(key, idsCurrentFile, mark)+"\n"))
	}
	live := make(map[string]bool, len(tasks))
	for _, t := range tasks {
		live[t.Task] = true
	}
	return s.idsIn(dir, key, prefix, func(task string) bool { return live[task] }), true
}

// idsCurrentFile names the digest of the task refs' header (latestHeader)
// the index was last brought up to, with its MAC.
const idsCurrentFile = "current"

// idsCurrent is the digest ids/current names, "" when none holds.
func idsCurrent(dir string, key []byte) string {
	data, _ := os.ReadFile(filepath.Join(dir, idsCurrentFile))
	mark, mac, ok := strings.Cut(strings.TrimSuffix(string(data), "\n"), " ")
	if !ok || !hmac.Equal([]byte(mac), []byte(idsLineMAC(key, idsCurrentFile, mark))) {
		return ""
	}
	return mark
}

// idsIn returns the tasks the shard of prefix names for an id starting
// with prefix, each once, those live says exist.
func (s *Store) idsIn(dir string, key []byte, prefix string, live func(task string) bool) []string {
	shard, _ := os.ReadFile(filepath.Join(dir, strings.ToUpper(prefix[:idShard])))
	var out []string
	seen := map[string]bool{}
	for _, l := range idsLines(key, shard) {
		if strings.HasPrefix(l[0], prefix) && !seen[l[1]] && live(l[1]) {
			seen[l[1]] = true
			out = append(out, l[1])
		}
	}
	return out
}

// idOf is the record id of a records/ entry name
// ("<clock>-<kind>-<id>.json").
func idOf(name string) string {
	name = strings.TrimSuffix(name, ".json")
	return name[strings.LastIndexByte(name, '-')+1:]
}

// appendCreate appends data to the file at path (created when missing)
// under its lock.
func appendCreate(path string, data []byte) error {
	return git.AppendFile(path, data, 0o600, 0, true, -1)
}
