package gitstore

// FuzzFetchedHistory builds, from the fuzz input, the kind of history a
// fetch can bring: random trees (records/ entries with any name, mode and
// content, a records/ that is a file, entries that are trees or links),
// blobs of any size (valid records padded to megabytes, random bytes),
// records with fuzzed ids, kinds, tasks and clocks, merges of any commits,
// and refs for two tasks pointing anywhere. It then runs the whole read
// path over it: Load, Derive and every rendering of a state, the cross-task
// index (status of all, standing conclusions), Clean, and Verify. No input
// may panic, and the read path must stay within a memory bound that does
// not grow with the size of the objects (they are refused by size, never
// read whole).
//
// Seeds live in testdata/fuzz/FuzzFetchedHistory/; plain 'go test' runs
// them. A long run: go test ./gitstore -run '^$' -fuzz FuzzFetchedHistory
// -fuzztime 5m.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"git-reason/record"
)

// readPathAllocLimit bounds what the read path may allocate for one fuzzed
// history, whose objects may total tens of megabytes.
const readPathAllocLimit = 48 << 20

func FuzzFetchedHistory(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 0, 1, 2, 3})
	f.Add([]byte("\x00\x00\x04\x00\x00\x03\x01\x02\x05"))
	f.Add([]byte("\x02\x30\x00\x06\x07\x01\x10{\"id\":\"ABCDE\"}\x03"))
	// Tree-level mutations of a clean record's tree: its entry twice, two
	// entries swapped, mode 120000, the name "a/b".
	f.Add([]byte{0, 0, 2, 1, 3, 2, 1, 1, 8, 0})
	f.Add([]byte{0, 0, 2, 1, 3, 2, 1, 1, 0, 1, 2, 1, 3, 2, 1, 1, 8, 1})
	f.Add([]byte{0, 0, 2, 1, 3, 2, 1, 1, 8, 22})
	f.Add([]byte{0, 0, 2, 1, 3, 2, 1, 1, 8, 23})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 512 {
			return
		}
		dir := t.TempDir()
		for _, d := range []string{"objects", "refs/heads"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s := NewStore(&Repo{GitDir: dir, CommonDir: dir})
		b := &fuzzBuilder{t: t, s: s, in: data}
		b.build()

		ctx := context.Background()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		readAll(ctx, t, s)
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > readPathAllocLimit {
			t.Fatalf("the read path allocated %d MiB for a history of %d input bytes", got>>20, len(data))
		}
	})
}

// readAll runs every read a command makes of fetched histories, and
// holds the readers to one view of each task (agree).
func readAll(ctx context.Context, t *testing.T, s *Store) {
	x := Index{Store: s}
	x.Tasks(ctx)
	x.Standing(ctx, "subject", "")
	tasks, _ := s.Tasks(ctx)
	for _, th := range tasks {
		_, recs, loadErr := s.Load(ctx, th.Task)
		if loadErr == nil {
			if st, err := record.Derive(th.Task, recs); err == nil {
				st.Summarize()
				st.Report()
				st.Timeline()
				st.Standing()
				for _, e := range st.Entries {
					record.Summary(e)
				}
			}
		}
		s.Clean(ctx, th.Task)
		found, _ := s.Verify(ctx, th.Task, th.Head)
		// The reader of long histories, through git's processes, too.
		long := NewStore(s.Repo)
		long.longReads = true
		longFound, _ := long.Verify(ctx, th.Task, th.Head)
		if (len(found) == 0) != (len(longFound) == 0) {
			t.Fatalf("task %s: verify in process found %v, through git %v", th.Task, found, longFound)
		}
		agree(ctx, t, s, th, recs, loadErr, found)
	}
}

// agree holds load and replay to one view of a task: a history verify
// finds clean loads, with the records replay read, in the same order; a
// tree the reader refuses is refused by both; a task that does not load
// does not verify.
func agree(ctx context.Context, t *testing.T, s *Store, th record.TaskHead, recs []*record.Record, loadErr error, found []record.Finding) {
	t.Helper()
	if loadErr != nil && len(found) == 0 {
		t.Fatalf("task %s: verify finds nothing, load refuses: %v", th.Task, loadErr)
	}
	if errors.Is(loadErr, errBadTree) {
		said := false
		for _, f := range found {
			said = said || f.Code == record.FindUnreadable && strings.Contains(f.Message, errBadTree.Error())
		}
		if !said {
			t.Fatalf("task %s: load refuses its tree (%v); verify says %v", th.Task, loadErr, found)
		}
	}
	// The head's records/ tree as the load path reads it, and as replay's
	// reading of the history makes it: the same entries, or refused by both.
	tree, treeErr := s.recordsTree(plumbing.NewHash(th.Head))
	files, histErr := headFiles(ctx, s, th.Head)
	switch {
	case treeErr != nil && histErr == nil:
		t.Fatalf("task %s: the load path refuses its head tree (%v), replay reads its history", th.Task, treeErr)
	case treeErr == nil && histErr != nil:
		// Replay reads every commit's tree, the load path the head's
		// alone: an earlier commit's bad tree is replay's alone to
		// refuse, and verify must say so. The head's own tree must
		// not be the one replay refused.
		if _, err := headTreeAlone(ctx, s, th.Head); err != nil {
			t.Fatalf("task %s: the load path reads its head tree, replay refuses it: %v", th.Task, err)
		}
		if len(found) == 0 {
			t.Fatalf("task %s: replay refuses its history (%v), verify finds nothing", th.Task, histErr)
		}
	}
	if treeErr == nil && histErr == nil {
		if len(tree.Entries) != len(files) {
			t.Fatalf("task %s: the load path reads %d records at the head, replay %d", th.Task, len(tree.Entries), len(files))
		}
		for _, e := range tree.Entries {
			if files[e.Name] != e.Hash.String() {
				t.Fatalf("task %s: %s is %s to the load path, %q to replay", th.Task, e.Name, e.Hash, files[e.Name])
			}
		}
	}
	if len(found) > 0 {
		return
	}
	_, replayed := NewStore(s.Repo).replay(ctx, th.Task, th.Head, true, nil)
	if len(replayed) != len(recs) {
		t.Fatalf("task %s: replay read %d records, load %d", th.Task, len(replayed), len(recs))
	}
	for i, r := range recs {
		if r.FileName() != replayed[i].FileName() || !bytes.Equal(r.Body, replayed[i].Body) || !bytes.Equal(r.Derived, replayed[i].Derived) {
			t.Fatalf("task %s: record %d is %s to load, %s to replay", th.Task, i, r.FileName(), replayed[i].FileName())
		}
	}
}

// headTreeAlone is the head's records/ tree as replay reads it with no
// commit before it: a commit of the head's tree and no parent, written
// beside the history (no ref names it), read as a history.
func headTreeAlone(ctx context.Context, s *Store, head string) (map[string]string, error) {
	c, err := s.getCommit(plumbing.NewHash(head))
	if err != nil {
		return nil, err
	}
	alone := *c
	alone.ParentHashes = nil
	h, err := s.writeCommitObject(&alone)
	if err != nil {
		return nil, err
	}
	return headFiles(ctx, s, h.String())
}

// headFiles is the head's records/ tree (name -> blob) as replay reads
// it: each commit's files, or its changes against its first parent's.
func headFiles(ctx context.Context, s *Store, head string) (map[string]string, error) {
	h, err := NewStore(s.Repo).readHistory(ctx, head, nil, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	files := map[string]map[string]string{}
	for _, c := range h.commits {
		if c.Files != nil {
			files[c.Hash] = c.Files
			continue
		}
		f := map[string]string{}
		if len(c.Parents) > 0 {
			maps.Copy(f, files[c.Parents[0]])
		}
		for name, blob := range c.Changes {
			if blob == "" {
				delete(f, name)
			} else {
				f[name] = blob
			}
		}
		files[c.Hash] = f
	}
	return files[head], nil
}

// fuzzBuilder turns fuzz bytes into objects and refs.
type fuzzBuilder struct {
	t        *testing.T
	s        *Store
	in       []byte
	branches [2]*fuzzBranch
	cur      int
	n        int
	mutate   byte // set: the next records/ tree is mutated (mutateTree)
}

// The tree-level mutations of a records/ tree: every mode git's fsck
// knows and some it does not, and names it refuses.
var (
	fuzzModes = []string{"100644", "100755", "100664", "0100644", "120000", "40000", "040000", "160000", "0", "777777"}
	fuzzNames = []string{"", ".", "..", ".git", "a/b", "0000000001-assessment-01HZZZZZZZZZZZZZZZZZZZ0001.json/"}
)

// mutateTree is the bytes of a tree of entries (in git's order) changed
// as m says: the first entry twice, the first two swapped, the first with
// another mode or name, or an entry of an odd name added.
func mutateTree(entries []object.TreeEntry, m byte) []byte {
	type ent struct {
		mode, name string
		hash       plumbing.Hash
	}
	var es []ent
	for _, e := range entries {
		es = append(es, ent{fmt.Sprintf("%o", uint32(e.Mode)), e.Name, e.Hash})
	}
	if len(es) == 0 {
		es = append(es, ent{"100644", fuzzNames[int(m)%len(fuzzNames)], plumbing.ZeroHash})
	}
	switch m % 5 {
	case 0:
		es = append(es[:1], es...)
	case 1:
		if len(es) > 1 {
			es[0], es[1] = es[1], es[0]
		}
	case 2:
		es[0].mode = fuzzModes[int(m/5)%len(fuzzModes)]
	case 3:
		es[0].name = fuzzNames[int(m/5)%len(fuzzNames)]
	case 4:
		es = append(es, ent{fuzzModes[int(m/5)%len(fuzzModes)], fuzzNames[int(m/5)%len(fuzzNames)], es[0].hash})
	}
	var out []byte
	for _, e := range es {
		out = append(append(append(append(out, e.mode...), ' '), e.name...), 0)
		out = append(out, e.hash[:]...)
	}
	return out
}

// rawTree writes a tree of the given bytes, unchecked.
func (b *fuzzBuilder) rawTree(data []byte) plumbing.Hash { return b.object(plumbing.TreeObject, data) }

// object writes an object of type typ holding data, unchecked.
func (b *fuzzBuilder) object(typ plumbing.ObjectType, data []byte) plumbing.Hash {
	obj := b.s.objs.NewEncodedObject()
	obj.SetType(typ)
	obj.SetSize(int64(len(data)))
	w, _ := obj.Writer()
	w.Write(data)
	w.Close()
	h, err := b.s.objs.SetEncodedObject(obj)
	if err != nil {
		b.t.Fatal(err)
	}
	return h
}

type fuzzBranch struct {
	head  plumbing.Hash
	files map[string]object.TreeEntry
	clock int64
}

func (b *fuzzBuilder) byte() byte {
	if len(b.in) == 0 {
		return 0
	}
	c := b.in[0]
	b.in = b.in[1:]
	return c
}

func (b *fuzzBuilder) take(n int) []byte {
	n = min(n, len(b.in))
	out := b.in[:n]
	b.in = b.in[n:]
	return out
}

var fuzzKinds = []string{"assessment", "plan", "consultation", "conclusion", "validation", "attempt", "disagreement", "resolution", "bogus"}

// rec makes a record: valid for its kind when the fuzz says so, with
// fuzzed id, kind, task and clock otherwise.
func (b *fuzzBuilder) rec(br *fuzzBranch, task string) ([]byte, string) {
	b.n++
	kind := fuzzKinds[int(b.byte())%len(fuzzKinds)]
	id := fmt.Sprintf("01HZZZZZZZZZZZZZZZZZZZ%04d", b.n)
	switch b.byte() % 8 {
	case 0:
		id = id[:5]
	case 1:
		id = strings.ToLower(id)
	}
	clock := br.clock + 1
	if c := b.byte(); c%5 == 0 {
		clock = int64(c) - 2
	}
	br.clock = max(br.clock, clock)
	mat := []string{"trivial", "minor", "material", "critical"}[b.byte()%4]
	rev := []string{"reversible", "costly", "irreversible"}[b.byte()%3]
	bodies := map[string]string{
		"assessment":   `{"subject":"Subject","question":"q","materiality":"` + mat + `","reversibility":"` + rev + `","evidence":[{"kind":"note","summary":"n"}]}`,
		"plan":         `{"assessment":"01HZZZZZZZZZZZZZZZZZZZ0001"}`,
		"consultation": `{"plan":"01HZZZZZZZZZZZZZZZZZZZ0002","advisor":"a","status":"failed","failure":{"kind":"rate_limit","retry_after_s":999999999},"transport":"cli","duration_ms":1}`,
		"conclusion":   `{"assessment":"01HZZZZZZZZZZZZZZZZZZZ0001","decision":"d\u001b[2J"}`,
		"validation":   `{"conclusion":"01HZZZZZZZZZZZZZZZZZZZ0003","method":"command","command":"true"}`,
		"attempt":      `{"conclusion":"01HZZZZZZZZZZZZZZZZZZZ0003","outcome":"failed"}`,
		"disagreement": `{"assessment":"01HZZZZZZZZZZZZZZZZZZZ0001","cites":["01HZZZZZZZZZZZZZZZZZZZ0003","01HZZZZZZZZZZZZZZZZZZZ0004"],"summary":"s"}`,
		"resolution":   `{"disagreement":"01HZZZZZZZZZZZZZZZZZZZ0005","decision":"d","evidence":[{"kind":"note","summary":"n"}]}`,
	}
	deriveds := map[string]string{
		"assessment": `{"subject_key":"subject","reuses":"01HZZZZZZZZZZZZZZZZZZZ0003","reuses_task":"U","reuses_actor":"x","reuses_materiality":"critical","reuses_reversibility":"irreversible"}`,
		"plan":       `{"profile":"p","mode":"normal","review":"required","reason":"r","wanted":1,"selected":["a"],"snapshot":[]}`,
		"conclusion": `{"review_count":3,"advisors":[]}`,
		"validation": `{"result":"pass"}`,
	}
	body, derived := bodies[kind], deriveds[kind]
	if body == "" {
		body = "{}"
	}
	if derived == "" || b.byte()%3 == 0 {
		derived = "{}"
	}
	if b.byte()%4 == 0 {
		task = "Other"
	}
	doc := fmt.Sprintf(`{"id":%q,"kind":%q,"task":%q,"created":"2026-01-01T00:00:00.000Z","actor":"Eve <e@x>","origin":"o","clock":%d,"body":%s,"derived":%s}`,
		id, kind, task, clock, body, derived)
	name := fmt.Sprintf("%010d-%s-%s.json", clock, kind, id)
	return []byte(doc), name
}

func (b *fuzzBuilder) blob(data []byte) plumbing.Hash { return b.object(plumbing.BlobObject, data) }

func (b *fuzzBuilder) tree(entries []object.TreeEntry) plumbing.Hash {
	obj := b.s.objs.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		b.t.Fatal(err)
	}
	h, err := b.s.objs.SetEncodedObject(obj)
	if err != nil {
		b.t.Fatal(err)
	}
	return h
}

func (b *fuzzBuilder) commit(br *fuzzBranch, parents []plumbing.Hash, recordsAsFile bool) {
	var entries []object.TreeEntry
	for _, e := range br.files {
		entries = append(entries, e)
	}
	// Tree entries in git's order; duplicates cannot occur (map keys).
	sortTreeEntries(entries)
	records := b.tree(entries)
	if b.mutate != 0 {
		records = b.rawTree(mutateTree(entries, b.mutate&0x7f))
		b.mutate = 0
	}
	mode := filemode.Dir
	if recordsAsFile {
		records, mode = b.blob([]byte("not a tree")), filemode.Regular
	}
	root := b.tree([]object.TreeEntry{{Name: RecordsDir, Mode: mode, Hash: records}})
	sig := object.Signature(ParseActor("Eve <e@x>", fuzzEpoch))
	c := &object.Commit{Author: sig, Committer: sig, Message: "x: fuzzed\n\nReason-Task: T\n", TreeHash: root, ParentHashes: parents}
	obj := b.s.objs.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		b.t.Fatal(err)
	}
	h, err := b.s.objs.SetEncodedObject(obj)
	if err != nil {
		b.t.Fatal(err)
	}
	br.head = h
}

func sortTreeEntries(es []object.TreeEntry) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && treeLess(es[j], es[j-1]); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// treeLess is git's tree order: a tree sorts as if its name ended in '/'.
func treeLess(a, b object.TreeEntry) bool {
	an, bn := a.Name, b.Name
	if a.Mode == filemode.Dir {
		an += "/"
	}
	if b.Mode == filemode.Dir {
		bn += "/"
	}
	return an < bn
}

func (b *fuzzBuilder) build() {
	for i := range b.branches {
		b.branches[i] = &fuzzBranch{files: map[string]object.TreeEntry{}}
	}
	for steps := 0; len(b.in) > 0 && steps < 40; steps++ {
		br := b.branches[b.cur]
		switch b.byte() % 9 {
		case 0, 1: // a record, valid or fuzzed
			doc, name := b.rec(br, "T")
			br.files[name] = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: b.blob(doc)}
			b.commitOn(br)
		case 2: // a valid record padded to megabytes of blanks
			doc, name := b.rec(br, "T")
			pad := int(b.byte()%24) << 18 // up to 6 MiB: still valid JSON
			br.files[name] = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: b.blob(append(doc, bytes.Repeat([]byte{' '}, pad)...))}
			b.commitOn(br)
		case 3: // raw bytes under a fuzzed name
			n := int(b.byte())
			name := string(b.take(int(b.byte() % 40)))
			if name == "" || strings.ContainsAny(name, "/\x00") {
				name = fmt.Sprintf("0000000001-assessment-%d.json", n)
			}
			br.files[name] = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: b.blob(b.take(n))}
			b.commitOn(br)
		case 4: // merge the other branch in
			other := b.branches[1-b.cur]
			for k, v := range other.files {
				br.files[k] = v
			}
			br.clock = max(br.clock, other.clock)
			var parents []plumbing.Hash
			for _, h := range []plumbing.Hash{br.head, other.head} {
				if !h.IsZero() {
					parents = append(parents, h)
				}
			}
			b.commit(br, parents, false)
		case 5: // switch branches, forking from here when the other is empty
			b.cur = 1 - b.cur
			if o := b.branches[b.cur]; o.head.IsZero() {
				o.head, o.clock = br.head, br.clock
				for k, v := range br.files {
					o.files[k] = v
				}
			}
		case 6: // drop an entry, or make one a link or a tree
			for k, e := range br.files {
				switch b.byte() % 3 {
				case 0:
					delete(br.files, k)
				case 1:
					e.Mode = filemode.Symlink
					br.files[k] = e
				case 2:
					e.Mode, e.Hash = filemode.Dir, b.tree(nil)
					br.files[k] = e
				}
				break
			}
			b.commitOn(br)
		case 7: // records/ as a file
			var parents []plumbing.Hash
			if !br.head.IsZero() {
				parents = []plumbing.Hash{br.head}
			}
			b.commit(br, parents, true)
		case 8: // the next records/ tree as git's fsck would refuse it
			b.mutate = b.byte() | 0x80
			b.commitOn(br)
		}
	}
	for i, task := range []string{"T", "U"} {
		if h := b.branches[i].head; !h.IsZero() {
			if err := b.s.Repo.UpdateRef(TaskRef(task), "", h.String()); err != nil {
				b.t.Fatal(err)
			}
		}
	}
}

func (b *fuzzBuilder) commitOn(br *fuzzBranch) {
	var parents []plumbing.Hash
	if !br.head.IsZero() {
		parents = []plumbing.Hash{br.head}
	}
	b.commit(br, parents, false)
}

var fuzzEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
