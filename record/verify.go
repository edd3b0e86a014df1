package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"git-reason/policy"
)

// Commit is one commit of a task's history as verification reads it. Its
// records/ tree comes one of two ways: whole, in Files, or, when Files is
// nil, as Changes against the tree of its first parent, which then comes
// earlier in the same history. A reader that reads each tree once gives
// Changes, so that a commit carries what it changed rather than the whole
// record set again.
type Commit struct {
	Hash    string
	Parents []string
	Files   map[string]string // records/ entry name -> blob hash
	// Changes, when Files is nil: every records/ entry name whose blob
	// differs from the first parent's, with this commit's blob hash, or ""
	// for a name the first parent has and this commit does not.
	Changes   map[string]string
	Trailers  map[string]string // Reason-Task, Reason-Kind, Reason-Record
	When      time.Time         // the author date
	Author    string            // "Name <email>" of the author
	Committer string            // "Name <email>" of the committer
}

// Finding is one thing replay verification found wrong with a history.
type Finding struct {
	Task    string `json:"task"`
	Commit  string `json:"commit"`
	Record  string `json:"record,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s %s: %s: %s", f.Task, ShortCommit(f.Commit), f.Code, f.Message)
}

// The finding codes verification reports; scripts may match on them.
const (
	FindSchema       = "schema"        // a record fails its schema
	FindUnreadable   = "unreadable"    // a record's blob does not parse
	FindFileName     = "file_name"     // the tree entry's name does not match the record
	FindWrongTask    = "wrong_task"    // a record of another task
	FindChanged      = "changed"       // an earlier record was changed
	FindDropped      = "dropped"       // an earlier record was dropped
	FindNotOne       = "not_one"       // a commit adds no record, or more than one
	FindClock        = "clock"         // the clock is not the Lamport successor
	FindDuplicate    = "duplicate_id"  // two records share an id
	FindEnvelope     = "envelope"      // trailers or dates disagree with the record
	FindInadmissible = "inadmissible"  // the rules would have refused the record
	FindDerived      = "derived"       // derived fields differ from what the writer computes
	FindMerge        = "merge"         // a merge's tree is not the union of its parents
	FindMergeRule    = "merge_refused" // the union of two histories breaks a rule
	FindReuse        = "reuse"         // a reused conclusion is not what the reuse says, or its task does not replay clean
	FindBrokenRef    = "broken_ref"    // the task's ref file names no commit (the finding's commit is NoCommit)
	FindMisnamedRef  = "misnamed_ref"  // a ref under refs/reasoning/tasks/ whose name is no task's (commit NoCommit)
)

// NoCommit is the commit of a finding that has none, git's all-zero id.
const NoCommit = "0000000000000000000000000000000000000000"

// ParseRecord reads a stored record strictly: the whole document is checked
// against the envelope schema first, so a field the envelope does not have
// is a *SchemaError rather than silently dropped.
func ParseRecord(data []byte) (*Record, error) {
	rec, _, err := parseRecord(data)
	return rec, err
}

// parseRecord is ParseRecord that also returns the document as decoded for
// validation, so that its body and derived fields can be validated without
// decoding them again.
func parseRecord(data []byte) (*Record, map[string]any, error) {
	if at, ok := TooDeep(data); ok {
		return nil, nil, tooDeepError("", "envelope", at)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, fmt.Errorf("parse record: %w", err)
	}
	if err := validate(claimedKind(v), "envelope", v); err != nil {
		return nil, nil, err
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, nil, fmt.Errorf("parse record: %w", err)
	}
	doc, _ := v.(map[string]any) // the envelope schema says it is an object
	return &rec, doc, nil
}

// claimedKind is the kind a document that fails the envelope schema
// names, if it names one; else "" (kindNamed takes its file name's).
func claimedKind(v any) Kind {
	doc, _ := v.(map[string]any)
	s, _ := doc["kind"].(string)
	if k, err := ParseKind(s); err == nil {
		return k
	}
	return ""
}

// Checked remembers the records replays read and checked clean, by task,
// entry name and blob, so that replays of histories that share records
// (the fetched and the local history of a pull, and their merge) read and
// check each record once. What an entry's checks find depends on nothing
// else, so a record checked clean once is clean in every replay.
//
// It also remembers, by blob alone, what reading the blob, checking it
// against the schemas (CheckRecord) and decoding it gave, clean or not:
// that depends on the blob's content alone, so a replay for any task, of
// any entry holding the blob, takes it instead of reading and checking
// the blob again, and checks only what depends on the task and the entry
// (the record's task, its file name). A remote of many task refs naming
// one commit whose records decode (another task's, say) cost a read and
// a schema check of every record per ref; now one per run. It holds
// them only from the replays told to (ReplayBlind's hold: of a head
// other tasks' replays are to take), and at most MaxHeldProbes: held
// from every replay, they grew with the distinct blobs of the run
// (40 task refs, a commit each of 10,000 blobs of its own that are no
// record: pull peaked at 811 MB where 7df7135 took 501 MB; now 446
// MB). The zero value is ready; it is safe for concurrent use, and a
// nil *Checked remembers nothing.
type Checked struct {
	mu    sync.Mutex
	m     map[checkedKey]*Entry
	blobs map[string]*probe // blob -> read, checked and decoded
}

type checkedKey struct{ task, name, blob string }

func (k *Checked) get(task string, key entryKey) *Entry {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.m[checkedKey{task, key.name, key.blob}]
}

// probe is what reading, checking and decoding blob gave, nil when k
// does not hold it.
func (k *Checked) probe(blob string) *probe {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.blobs[blob]
}

func (k *Checked) putProbe(blob string, p *probe) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.blobs) < MaxHeldProbes {
		k.blobs = putIn(k.blobs, blob, p)
	}
}

// MaxHeldProbes is the most blobs a Checked holds what reading them gave
// (a probe of a blob that is no record, its schema error held, is about
// 700 bytes): past it, a replay reads and checks the blobs k does not
// hold, as one told not to hold them does.
const MaxHeldProbes = 50_000

// HeldProbes is how many blobs k holds what reading and checking them
// gave (HasBlob).
func (k *Checked) HeldProbes() int {
	if k == nil {
		return 0
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.blobs)
}

// HasBlob reports whether k holds what reading and checking blob gave,
// so that no replay through k reads it again.
func (k *Checked) HasBlob(blob string) bool { return k.probe(blob) != nil }

func (k *Checked) put(task string, key entryKey, e *Entry) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m = putIn(k.m, checkedKey{task, key.name, key.blob}, e)
}

// putIn sets m[key] to v, making m first when it is nil, and returns m.
func putIn[K comparable, V any](m map[K]V, key K, v V) map[K]V {
	if m == nil {
		m = map[K]V{}
	}
	m[key] = v
	return m
}

// Replay verifies a task's history: commits in an order where parents come
// before children, blob reads a record by blob hash. It replays every
// record through the admission rules from the records before it and reports
// each commit the writer would not have produced. An honest history yields
// no finding. It reuses and remembers the records k holds.
//
// It also returns the records of the last commit's tree (the head's, in a
// history that ends with its head), in tree order, each as the replay read
// and checked it: nil when any of them fails the checks ReadStored makes,
// or when the history is empty; and the state the replay reached at the
// head: when there is no finding, the state Derive builds from the head's
// records, its entries decoded once, by the replay, so a read surface need
// not decode them again (nil when the replay ended early).
//
// blob may be called from several goroutines at once: the records a
// history brings are read and checked on every core before the replay,
// which is sequential, reaches them.
func (k *Checked) Replay(ctx context.Context, task string, commits []*Commit, blob func(hash string) (*Record, error)) ([]Finding, []*Record, *State) {
	found, recs, st, _ := k.ReplayBlind(ctx, task, commits, blob, false)
	return found, recs, st
}

// ReplayBlind is Replay that also says whether the replay was blind to
// task: no record of the history decoded, so none was compared with
// task, taken from k as checked for it, or replayed through the rules
// (a history of entries that are no record, or of no entry). Then a
// Replay of the same commits as any other task finds the same findings,
// but for their Task, and the same records: what reading a blob gives
// depends on its content alone, k holds as checked for a task only
// records that decoded, and what it holds by blob alone does not depend
// on the task.
// Run for several task names, such a history is replayed once.
// hold: k is to hold what reading each blob gave (HasBlob), for the
// replays of other tasks at the same commits; a replay not told takes
// what k holds and adds nothing.
func (k *Checked) ReplayBlind(ctx context.Context, task string, commits []*Commit, blob func(hash string) (*Record, error), hold bool) ([]Finding, []*Record, *State, bool) {
	v := newVerifier(task, blob)
	v.shared = k
	v.hold = hold
	for _, c := range commits {
		for _, p := range distinctParents(c) {
			v.kids[p]++
		}
	}
	recs := v.replay(ctx, commits)
	return v.findings(), recs, v.last, !v.named
}

// replay checks commits in order (parents first) and returns the records of
// the last one, or nil when there is none or ctx ended the replay early.
func (v *verifier) replay(ctx context.Context, commits []*Commit) []*Record {
	v.precheck(ctx, commits)
	for _, c := range commits {
		if ctx.Err() != nil {
			break
		}
		v.commit(ctx, c)
	}
	if len(commits) == 0 || ctx.Err() != nil {
		return nil
	}
	head := commits[len(commits)-1].Hash
	v.settle(v.states[head])
	if recs := v.records(v.files[head]); recs != nil {
		v.last = v.states[head]
		return recs
	}
	return nil
}

func newVerifier(task string, blob func(string) (*Record, error)) *verifier {
	return &verifier{task: task, blob: blob, states: map[string]*State{}, probes: map[string]*probe{}, taken: map[string]bool{},
		entries: map[entryKey]checked{}, files: map[string]map[string]string{}, kids: map[string]int{}}
}

// A verifier replays each commit once, parents first. What a commit's
// children need (its state and files) is kept until its last child has
// taken it, and that child takes it over instead of copying it, so a long
// linear history costs one state and one file map, not one per commit.
// Each record is read and checked once, whatever number of trees hold it.
type verifier struct {
	task    string
	blob    func(string) (*Record, error)
	states  map[string]*State            // commit -> state after it, until its children are done
	files   map[string]map[string]string // commit -> its records/ tree, likewise
	kids    map[string]int               // commit -> children not replayed yet
	entries map[entryKey]checked
	probes  map[string]*probe // blob -> read and checked by this replay
	taken   map[string]bool   // blobs whose probe's entry an entry took
	shared  *Checked          // records checked clean by other replays
	hold    bool              // shared is to hold this replay's probes
	found   []Finding
	// more counts the findings past MaxFindings; moreAt and moreCode
	// are the first one's commit and code.
	more             int
	moreAt, moreCode string
	last             *State // the state at the head, once replay reached it
	// named: the task's name took part in the replay beyond labelling
	// its findings (ReplayBlind).
	named   bool
	refused []int // the indices in found of merge_refused findings, until settle
	// closed: the indices in refused of records refused only because a
	// closure came before them in the merged order.
	closed map[int]bool
}

// probe is a blob read and checked: what read gave, what CheckRecord and
// Decode said, none of which depends on the task or the entry's name. It
// is not changed once made (Checked shares it between replays). A replay
// takes its entry for the first entry that holds the blob; any other of
// that replay decodes the record again, an entry of its own.
type probe struct {
	rec      *Record
	err      error // reading the blob
	checkErr error // CheckRecord
	e        *Entry
	decErr   error
}

// checkBlob reads blob with read, checks it against the schemas and
// decodes it.
func checkBlob(read func(string) (*Record, error), blob string) *probe {
	p := &probe{}
	if p.rec, p.err = read(blob); p.err == nil {
		if p.checkErr = CheckRecord(p.rec); p.checkErr == nil {
			p.e, p.decErr = Decode(p.rec)
		}
	}
	return p
}

// precheckMin is the fewest blobs worth reading on several goroutines.
const precheckMin = 64

// precheck reads and checks every blob the commits bring on every core
// (the schema checks are most of a replay's work), in no particular order;
// the replay then reports what they found, in its own order. A blob the
// run checked already (Checked.probe) is not read again.
func (v *verifier) precheck(ctx context.Context, commits []*Commit) {
	seen := map[string]bool{}
	var hashes []string
	note := func(name, h string) {
		// An entry known already (a base's, one another replay checked)
		// is never read again: a replay from a base costs what came after.
		if _, base := v.entries[entryKey{name, h}]; base {
			return
		}
		if h != "" && !seen[h] && v.shared.get(v.task, entryKey{name, h}) == nil && v.shared.probe(h) == nil {
			seen[h] = true
			hashes = append(hashes, h)
		}
	}
	for _, c := range commits {
		for name, h := range c.Changes {
			note(name, h)
		}
		for name, h := range c.Files {
			note(name, h)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 4)
	if len(hashes) < precheckMin || workers < 2 {
		return
	}
	probes := make([]*probe, len(hashes))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(hashes) {
					return
				}
				probes[i] = checkBlob(v.blob, hashes[i])
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return
	}
	for i, h := range hashes {
		v.probes[h] = probes[i]
		v.holdProbe(h, probes[i])
	}
}

// holdProbe has the run's Checked hold p, when this replay is to.
func (v *verifier) holdProbe(blob string, p *probe) {
	if v.hold {
		v.shared.putProbe(blob, p)
	}
}

// entryKey is a records/ entry: its name and blob.
type entryKey struct{ name, blob string }

// checked is what reading and checking one entry gave: the entry (nil
// when it did not decode) and whether it passed every check ReadStored
// makes.
type checked struct {
	e  *Entry
	ok bool
}

// MaxFindings is the most findings one replay lists, merge_refused ones
// aside (settle needs each of them): a fetched history of a few commits,
// each a tree of 200,000 entries that are no record, packs into a few MiB
// and gave a finding per entry per commit, millions in all, which pull,
// verify and quarantine.json held whole (GBs). Past it, one more finding
// says how many were left out.
const MaxFindings = 1000

func (v *verifier) add(c *Commit, rec, code, format string, args ...any) {
	if code != FindMergeRule && len(v.found)-len(v.refused) >= MaxFindings {
		if v.more == 0 {
			v.moreAt, v.moreCode = c.Hash, code
		}
		v.more++
		return
	}
	v.found = append(v.found, Finding{Task: v.task, Commit: c.Hash, Record: rec, Code: code, Message: fmt.Sprintf(format, args...)})
}

// findings are the replay's findings, with one more naming how many it
// left out (MaxFindings).
func (v *verifier) findings() []Finding {
	if v.more == 0 {
		return v.found
	}
	return append(v.found, Finding{Task: v.task, Commit: v.moreAt, Code: v.moreCode,
		Message: fmt.Sprintf("and %d more findings from here on, not listed (a replay lists the first %d)", v.more, MaxFindings)})
}

// take returns the state and files after parent p for a child to extend:
// p's own when this child is the last to need them, else copies.
func (v *verifier) take(p string) (*State, map[string]string) {
	st, files := v.states[p], v.files[p]
	v.kids[p]--
	if v.kids[p] > 0 {
		if st != nil {
			st = st.clone()
		}
		if files != nil {
			files = maps.Clone(files)
		}
		return st, files
	}
	delete(v.states, p)
	delete(v.files, p)
	return st, files
}

// unionLookups counts the names of its parents' records merge reads
// checking a merge's union, so that a test holds that work to the
// parents' names, read a few times each, whatever the number of parents
// (comparing each parent's names with every earlier parent's read a
// merge of 6,000 parents of 40 records 720 million times).
var unionLookups atomic.Int64

// distinctParents is c's parents, each once, in their order.
func distinctParents(c *Commit) []string {
	if len(c.Parents) < 2 || len(c.Parents) == 2 && c.Parents[0] != c.Parents[1] {
		return c.Parents
	}
	seen := make(map[string]bool, len(c.Parents))
	out := make([]string, 0, len(c.Parents))
	for _, p := range c.Parents {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// keep stores c's state and files for its children (and, for the last
// commit, for Replay).
func (v *verifier) keep(c *Commit, st *State, files map[string]string) {
	v.states[c.Hash] = st
	v.files[c.Hash] = files
}

func (v *verifier) commit(ctx context.Context, c *Commit) {
	if len(c.Parents) > 1 {
		v.merge(ctx, c)
		return
	}
	var prevFiles map[string]string
	st := &State{Task: v.task, byID: map[string]*Entry{}}
	if len(c.Parents) == 1 {
		ps, pf := v.take(c.Parents[0])
		prevFiles = pf
		if ps != nil {
			st = ps
		}
	}
	if prevFiles == nil {
		prevFiles = map[string]string{}
	}
	var added []string
	files := c.Files
	if files != nil {
		for name, h := range prevFiles {
			switch got, ok := files[name]; {
			case !ok:
				v.add(c, idOf(name), FindDropped, "drops earlier record %s", name)
			case got != h:
				v.add(c, idOf(name), FindChanged, "changes earlier record %s", name)
			}
		}
		for name := range files {
			if _, ok := prevFiles[name]; !ok {
				added = append(added, name)
			}
		}
		if v.kids[c.Hash] > 0 {
			files = maps.Clone(files) // the caller's map is never changed
		}
	} else {
		// The parent's files become this commit's: taken over, or copied
		// by take when another child still needs them.
		files = prevFiles
		for _, name := range slices.Sorted(maps.Keys(c.Changes)) {
			h := c.Changes[name]
			old, had := files[name]
			switch {
			case had && h == "":
				v.add(c, idOf(name), FindDropped, "drops earlier record %s", name)
				delete(files, name)
			case had && old != h:
				v.add(c, idOf(name), FindChanged, "changes earlier record %s", name)
				files[name] = h
			case !had && h != "":
				added = append(added, name)
				files[name] = h
			}
		}
	}
	sort.Strings(added)
	if len(added) != 1 {
		v.add(c, "", FindNotOne, "adds %d records; each commit adds exactly one", len(added))
	}
	prevClock := st.Clock
	for _, name := range added {
		e := v.entry(c, name, files[name])
		if e == nil {
			continue
		}
		st.ready(e) // a lazy base's record reached again, through another parent
		if e.Clock != prevClock+1 {
			v.add(c, e.ID, FindClock, "clock %d follows %d; want %d", e.Clock, prevClock, prevClock+1)
		}
		v.envelope(c, e)
		v.admit(ctx, c, st, e)
		st.add(e)
	}
	v.keep(c, st, files)
}

// entry reads, checks and decodes one record of the commit's tree, once
// per name and blob: the findings are reported with the first commit that
// holds it.
func (v *verifier) entry(c *Commit, name, blob string) *Entry {
	key := entryKey{name, blob}
	if k, ok := v.entries[key]; ok {
		return k.e
	}
	if e := v.shared.get(v.task, key); e != nil {
		v.named = true
		v.entries[key] = checked{e: e, ok: true}
		return e
	}
	k := v.checkEntry(c, name, blob)
	v.entries[key] = k
	if k.ok && k.e != nil {
		v.shared.put(v.task, key, k.e)
	}
	return k.e
}

func (v *verifier) checkEntry(c *Commit, name, blob string) checked {
	p := v.probes[blob]
	if p == nil {
		if p = v.shared.probe(blob); p == nil {
			p = checkBlob(v.blob, blob)
			v.holdProbe(blob, p)
		}
		v.probes[blob] = p
	}
	e, decErr := p.e, p.decErr
	if v.taken[blob] && p.err == nil && p.checkErr == nil {
		// Another entry of this replay holds the blob: this one decodes
		// its record into an entry of its own.
		e, decErr = Decode(p.rec)
	}
	v.taken[blob] = true
	rec, err := p.rec, p.err
	var se *SchemaError
	if errors.As(err, &se) {
		v.add(c, idOf(name), FindSchema, "%s: %s", name, oneLineText(kindNamed(err, name).Error()))
		return checked{}
	}
	if err != nil {
		v.add(c, idOf(name), FindUnreadable, "%s: %v", name, err)
		return checked{}
	}
	if err := p.checkErr; err != nil {
		v.add(c, rec.ID, FindSchema, "%s", oneLineText(err.Error()))
		return checked{}
	}
	ok := true
	v.named = true // from here on what the record is checked against is the task's
	if rec.Task != v.task {
		v.add(c, rec.ID, FindWrongTask, "record of task %s stored under task %s", rec.Task, v.task)
		ok = false
	}
	if rec.FileName() != name {
		v.add(c, rec.ID, FindFileName, "stored as %s, want %s", name, rec.FileName())
		ok = false
	}
	if err := decErr; err != nil {
		v.add(c, rec.ID, FindUnreadable, "%v", err)
		return checked{}
	}
	return checked{e: e, ok: ok}
}

// records returns the records of files in tree order, each as checked
// already, or nil when one was not checked or failed a check.
func (v *verifier) records(files map[string]string) []*Record {
	if files == nil {
		return nil
	}
	out := make([]*Record, 0, len(files))
	for _, name := range slices.Sorted(maps.Keys(files)) {
		k, ok := v.entries[entryKey{name, files[name]}]
		if !ok || !k.ok || k.e == nil {
			return nil
		}
		out = append(out, k.e.Record)
	}
	return out
}

func (v *verifier) envelope(c *Commit, e *Entry) {
	want := map[string]string{"Reason-Task": v.task, "Reason-Kind": string(e.Kind), "Reason-Record": e.ID}
	for k, w := range want {
		if got := c.Trailers[k]; got != w {
			v.add(c, e.ID, FindEnvelope, "trailer %s is %q, want %q", k, got, w)
		}
	}
	for _, who := range []struct{ role, sig string }{{"author", c.Author}, {"committer", c.Committer}} {
		if who.sig != "" && who.sig != e.Actor {
			v.add(c, e.ID, FindEnvelope, "commit %s is %q, record actor %q", who.role, who.sig, e.Actor)
		}
	}
	created, err := time.Parse(time.RFC3339Nano, e.Created)
	if err == nil && !c.When.IsZero() && c.When.Unix() != created.Unix() {
		v.add(c, e.ID, FindEnvelope, "commit dated %s, record created %s", c.When.UTC().Format(time.RFC3339), e.Created)
	}
}

// admit re-runs the admission rule of e against the state before it and
// compares the derived fields with what the writer would compute.
func (v *verifier) admit(ctx context.Context, c *Commit, st *State, e *Entry) {
	if st.byID[e.ID] != nil {
		v.add(c, e.ID, FindDuplicate, "record id %s appears twice", e.ID)
		return
	}
	derived, err := replayRules(ctx, st, e)
	if err != nil {
		v.add(c, e.ID, FindInadmissible, "%s %s: %s", e.Kind, ShortID(e.ID), findingText(err))
		return
	}
	want, _ := json.Marshal(derived)
	got, _ := json.Marshal(e.Derived)
	if !bytes.Equal(want, got) {
		v.add(c, e.ID, FindDerived, "%s %s derived %s, the writer computes %s", e.Kind, ShortID(e.ID), got, want)
	}
}

// merge checks that a merge commit's tree is the union of its parents' and
// replays the union in (clock, id) order. The longest prefix of that order
// that a parent's state already holds, replayed in the same order, is not
// replayed again: only what the merge brings together is.
func (v *verifier) merge(ctx context.Context, c *Commit) {
	type parent struct {
		st    *State
		files map[string]string
	}
	distinct := distinctParents(c)
	if len(distinct) < len(c.Parents) {
		// git's commit-tree and the writer never name a parent twice; a
		// merge naming one thousands of times (a 1 MiB commit holds
		// 21,000 parent lines) would cost replay a copy of its state for
		// each. Replayed once, refused.
		v.add(c, "", FindMerge, "names %d parents, %d of them more than once", len(c.Parents), len(c.Parents)-len(distinct))
	}
	parents := make([]parent, 0, len(distinct))
	for _, p := range distinct {
		st, files := v.take(p)
		parents = append(parents, parent{st, files})
	}
	files := c.Files
	type was struct {
		blob string
		had  bool
	}
	var first map[string]was // the first parent's entries Changes names
	if files == nil {
		// take gave this merge the first parent's files to own.
		files = parents[0].files
		if files == nil {
			files = map[string]string{}
		}
		first = make(map[string]was, len(c.Changes))
		for name, h := range c.Changes {
			old, had := files[name]
			first[name] = was{old, had}
			if h == "" {
				delete(files, name)
			} else {
				files[name] = h
			}
		}
	} else if v.kids[c.Hash] > 0 {
		// A child takes these files over and changes them: the caller's
		// map is never changed (a history a run holds is replayed again).
		files = maps.Clone(files)
	}
	// The union takes a name's blob from the last parent that has it
	// (last: the index of that parent, the first parent's counted as 0);
	// the merge must hold each name of the union with that blob. held is
	// each name the parents hold, with the blob the first parent to hold
	// it holds and whether a later one holds another: one pass over the
	// parents' names, whatever their number (a merge of thousands of
	// parents compared each with every earlier one).
	type heldAs struct {
		blob string
		diff bool
	}
	held := map[string]heldAs{}
	last := map[string]int{}
	var looked int64 // the parents' names read: unionLookups
	for i, p := range parents[1:] {
		looked += int64(len(p.files))
		for name := range p.files {
			last[name] = i + 1
		}
	}
	laterHas := func(i int, name string) bool { return last[name] > i }
	// The first parent's own entries: its files may have become the
	// merge's own (Changes applied to them).
	looked += int64(len(parents[0].files))
	for name, h := range parents[0].files {
		if _, changed := first[name]; !changed {
			held[name] = heldAs{blob: h}
		}
	}
	for name, w := range first {
		if w.had {
			held[name] = heldAs{blob: w.blob}
		}
	}
	for i, p := range parents {
		if i > 0 {
			// Records are never changed: two parents holding one name
			// with different content is a forgery whichever blob the
			// merge keeps (the union's last would replace the other
			// side's record).
			looked += int64(len(p.files))
			for name, h := range p.files {
				was, ok := held[name]
				switch {
				case !ok:
					held[name] = heldAs{blob: h}
				case was.diff || was.blob != h:
					v.add(c, idOf(name), FindMerge, "parents hold %s with different content", name)
					held[name] = heldAs{blob: was.blob, diff: true}
				}
			}
		}
		if i == 0 && c.Files == nil {
			// Only the names Changes lists differ from the first parent.
			for _, name := range slices.Sorted(maps.Keys(c.Changes)) {
				if w := first[name]; w.had && files[name] != w.blob && !laterHas(0, name) {
					v.add(c, idOf(name), FindMerge, "merge drops or changes %s", name)
				}
			}
			continue
		}
		looked += int64(len(p.files))
		for name, h := range p.files {
			if files[name] != h && !laterHas(i, name) {
				v.add(c, idOf(name), FindMerge, "merge drops or changes %s", name)
			}
		}
	}
	inSome := func(name string) bool {
		_, ok := held[name]
		return ok
	}
	if c.Files == nil {
		for _, name := range slices.Sorted(maps.Keys(c.Changes)) {
			if c.Changes[name] != "" && !inSome(name) {
				v.add(c, idOf(name), FindMerge, "merge adds %s, which no parent has", name)
			}
		}
	} else {
		for name := range files {
			if !inSome(name) {
				v.add(c, idOf(name), FindMerge, "merge adds %s, which no parent has", name)
			}
		}
	}
	unionLookups.Add(looked)
	entries := make([]*Entry, 0, len(files))
	for name, h := range files {
		if e := v.entry(c, name, h); e != nil {
			entries = append(entries, e)
		}
	}
	slices.SortStableFunc(entries, func(a, b *Entry) int { return Compare(a.Record, b.Record) })
	// Start from the parent state that shares the longest prefix with the
	// union's order: the whole state when it is a prefix, else the state
	// that prefix alone makes.
	var st *State
	best := -1
	for _, p := range parents {
		if p.st == nil {
			continue
		}
		n := 0
		for n < len(p.st.Entries) && n < len(entries) && p.st.Entries[n] == entries[n] {
			n++
		}
		// On a tie, a state that is the prefix whole needs no rebuilding.
		if n > best || (n == best && len(p.st.Entries) == n && len(st.Entries) != n) {
			best, st = n, p.st
		}
	}
	switch {
	case st == nil || best == 0:
		st = &State{Task: v.task, byID: map[string]*Entry{}}
	case len(st.Entries) != best:
		st = st.truncate(best)
	}
	for _, e := range entries[len(st.Entries):] {
		// A lazy base's record (Base.Lazy) the merge orders after the
		// common prefix is replayed again: its fields are read here.
		st.ready(e)
		if st.byID[e.ID] != nil {
			// One id under two names, one from each side: each side
			// alone holds it once.
			v.add(c, e.ID, FindDuplicate, "record id %s appears twice", e.ID)
			st.add(e)
			continue
		}
		derived, err := replayRules(ctx, st, e)
		n := len(v.found)
		if err != nil {
			v.add(c, e.ID, FindMergeRule, "after the merge, %s %s: %v", e.Kind, ShortID(e.ID), err)
		} else if want, _ := json.Marshal(derived); !bytes.Equal(want, mustJSON(e.Derived)) {
			v.add(c, e.ID, FindMergeRule, "after the merge, %s %s derives %s", e.Kind, ShortID(e.ID), want)
		}
		if len(v.found) > n {
			v.refused = append(v.refused, n)
			if IsClosed(err) {
				if v.closed == nil {
					v.closed = map[int]bool{}
				}
				v.closed[n] = true
			}
		}
		st.add(e)
	}
	v.keep(c, st, files)
}

// settle drops the merge_refused findings that the state at the head
// settles (State.Settled): a person's conclusion written after the
// refused record, or, for a record refused only because the merge put it
// after a closure, a reopening written after it (State.Reopened). Replay admits the merged history once it is settled; until then
// the finding stands in every clone that holds the merge.
func (v *verifier) settle(head *State) {
	if head == nil || len(v.refused) == 0 {
		return
	}
	drop := map[int]bool{}
	for _, at := range v.refused {
		if rec := v.found[at].Record; head.Settled(rec) || (v.closed[at] && head.Reopened(rec)) {
			drop[at] = true
		}
	}
	kept := v.found[:0]
	for i, f := range v.found {
		if !drop[i] {
			kept = append(kept, f)
		}
	}
	v.found, v.refused, v.closed = kept, nil, nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// replayRules runs the writer's rule for e with what only privileged paths
// know taken from the stored record: the plan's snapshot, the reused
// conclusion, the attributed model, who opened a disagreement, what a
// validation run observed.
func replayRules(ctx context.Context, st *State, e *Entry) (any, error) {
	h := hints{driver: true}
	w := &Writer{Index: storedReuse{e}, Avail: storedSnapshot{e}}
	switch d := e.Derived.(type) {
	case *ConsultationDerived:
		h.model, h.endpoint, h.question = d.Model, d.Endpoint, d.Question
	case *DisagreementDerived:
		h.openedBy = d.OpenedBy
	case *AssessmentDerived:
		h.checkout = &d.Commit
	case *ValidationDerived:
		if e.Body.(*Validation).Method == "command" {
			obs := *d
			h.observed = &obs
		}
	}
	// A body the writer stored is in canonical form; re-checking it keeps
	// the replay honest about hand-made records.
	derived, err := w.replayRule(ctx, st, e.Kind, e.Body, h)
	if err != nil && !errors.Is(err, ErrRefused) && !errors.Is(err, ErrInput) {
		return nil, err
	}
	// Provenance is the writer's word, which replay cannot recompute: the
	// record's own is taken (its schema checked its type).
	if err != nil {
		return nil, err
	}
	if p, ok := derived.(provenanced); ok {
		if q, ok := e.Derived.(provenanced); ok {
			*p.provenance() = *q.provenance()
		}
	}
	if d, ok := derived.(*ConclusionDerived); ok {
		if q, ok := e.Derived.(*ConclusionDerived); ok {
			d.AnsweredBy = q.AnsweredBy
		}
	}
	return derived, nil
}

// storedReuse answers the reuse lookup with what the record says it reused.
type storedReuse struct{ e *Entry }

// The replay re-checks the rule (at least as demanding) from what the
// record says it reused; Store.Verify checks that against the reused task.
func (s storedReuse) Standing(context.Context, string, string) ([]Standing, error) {
	d, ok := s.e.Derived.(*AssessmentDerived)
	if !ok || d.Reuses == "" {
		return nil, nil
	}
	return []Standing{{Task: d.ReusesTask, Conclusion: d.Reuses, SubjectKey: d.SubjectKey, Actor: d.ReusesActor,
		Materiality: d.ReusesMateriality, Reversibility: d.ReusesReversibility}}, nil
}

// storedSnapshot answers the availability of a plan with its stored
// snapshot: admission reads the snapshot of the plan, never today's.
type storedSnapshot struct{ e *Entry }

func (s storedSnapshot) Snapshot(context.Context) (policy.Profile, []policy.Advisor, error) {
	d, ok := s.e.Derived.(*PlanDerived)
	if !ok {
		return policy.Profile{}, nil, nil
	}
	var snap []policy.Advisor
	for _, a := range d.Snapshot {
		snap = append(snap, policy.Advisor{ID: a.Advisor, Status: policy.Status(a.Status), Reason: a.Reason,
			Until: a.Until, Capabilities: a.Capabilities, Local: a.Local})
	}
	return policy.Profile{Name: d.Profile, Mode: policy.Mode(d.Mode)}, snap, nil
}

// truncate returns the state its first n entries make, changing s (which
// the caller owns) when that is cheaper than building it anew.
func (s *State) truncate(n int) *State {
	if len(s.byID) != len(s.Entries) || n < len(s.Entries)-n {
		// Repeated ids (byID cannot say which to drop), or a short prefix.
		t := &State{Task: s.Task, byID: make(map[string]*Entry, n+1)}
		for _, e := range s.Entries[:n] {
			t.add(e)
		}
		return t
	}
	for _, e := range s.Entries[n:] {
		delete(s.byID, e.ID)
	}
	s.withdrawals = nil
	s.Entries = s.Entries[:n]
	s.Clock = 0
	for _, e := range s.Entries {
		s.Clock = max(s.Clock, e.Clock)
	}
	return s
}

// clone copies a state so a child commit can extend it.
func (s *State) clone() *State {
	c := &State{Task: s.Task, Clock: s.Clock, Entries: append([]*Entry(nil), s.Entries...),
		byID: make(map[string]*Entry, len(s.byID)+1)}
	for k, e := range s.byID {
		c.byID[k] = e
	}
	return c
}

// idOf extracts the record id from a tree entry name, for findings.
func idOf(name string) string {
	name = strings.TrimSuffix(name, ".json")
	if i := strings.LastIndex(name, "-"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// Written remembers as checked clean the record of task stored as name
// with blob (whose content is data), a record this build's writer
// validated against its schemas when it wrote that blob: a replay takes it
// as read and checked, without compiling and validating its schemas again
// (gitstore keeps which blobs those are, under a MAC a fetch cannot
// forge). What does not depend on the schemas is checked here as a
// replay checks it: the record is of task, stored under its own file
// name, and decodes. false, remembering nothing, when one of them fails:
// the replay then reads and checks the record as any other. A nil
// *Checked remembers nothing.
func (k *Checked) Written(task, name, blob string, data []byte) bool {
	if k == nil {
		return false
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return false
	}
	return k.Stored(task, name, blob, &rec)
}

// Stored remembers as checked clean rec, the record of task stored as
// name with blob, as ReadStored read it from that blob (or the writer
// validated it): ReadStored's checks are a replay's (the record's
// schemas, its task, its file name, its decoding), so a replay of a
// history holding that blob takes a copy of rec as read and checked
// instead of validating it again. What does not depend on the schemas is
// checked again here; false, remembering nothing, when one fails. A nil
// *Checked remembers nothing.
func (k *Checked) Stored(task, name, blob string, rec *Record) bool {
	if k == nil || rec.Task != task || rec.FileName() != name {
		return false
	}
	r := *rec // the caller's is never changed
	e, err := Decode(&r)
	if err != nil {
		return false
	}
	k.put(task, entryKey{name, blob}, e)
	return true
}
