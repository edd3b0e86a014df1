package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"git-reason/policy"
)

// Commit is one commit of a task's history as verification reads it.
type Commit struct {
	Hash      string
	Parents   []string
	Files     map[string]string // records/ entry name -> blob hash
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
	c := f.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	return fmt.Sprintf("%s %s: %s: %s", f.Task, c, f.Code, f.Message)
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
)

// ParseRecord reads a stored record strictly: the whole document is checked
// against the envelope schema first, so a field the envelope does not have
// is a *SchemaError rather than silently dropped.
func ParseRecord(data []byte) (*Record, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("parse record: %w", err)
	}
	if err := validate(KindAssessment, "envelope", v); err != nil {
		return nil, err
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("parse record: %w", err)
	}
	return &rec, nil
}

// Replay verifies a task's history: commits in an order where parents come
// before children, blob reads a record by blob hash. It replays every
// record through the admission rules from the records before it and reports
// each commit the writer would not have produced. An honest history yields
// no finding.
func Replay(ctx context.Context, task string, commits []*Commit, blob func(hash string) (*Record, error)) []Finding {
	v := newVerifier(task, blob)
	for _, c := range commits {
		for _, p := range c.Parents {
			v.kids[p]++
		}
	}
	for _, c := range commits {
		if ctx.Err() != nil {
			break
		}
		v.commit(ctx, c)
	}
	return v.found
}

func newVerifier(task string, blob func(string) (*Record, error)) *verifier {
	return &verifier{task: task, blob: blob, states: map[string]*State{}, cache: map[string]*Record{},
		entries: map[string]*Entry{}, files: map[string]map[string]string{}, kids: map[string]int{}}
}

// A verifier replays each commit once, parents first. What a commit's
// children need (its state and files) is kept until its last child has
// taken it, and that child takes it over instead of copying it, so a long
// linear history costs one state, not one per commit. Each record is read
// and checked once, whatever number of trees hold it.
type verifier struct {
	task    string
	blob    func(string) (*Record, error)
	states  map[string]*State // commit -> state after it, until its children are done
	files   map[string]map[string]string
	kids    map[string]int // commit -> children not replayed yet
	cache   map[string]*Record
	entries map[string]*Entry // name + blob -> checked entry (nil: it did not check)
	found   []Finding
}

func (v *verifier) add(c *Commit, rec, code, format string, args ...any) {
	v.found = append(v.found, Finding{Task: v.task, Commit: c.Hash, Record: rec, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (v *verifier) read(hash string) (*Record, error) {
	if r, ok := v.cache[hash]; ok {
		return r, nil
	}
	r, err := v.blob(hash)
	if err == nil {
		v.cache[hash] = r
	}
	return r, err
}

// take returns the state after parent p for a child to extend: p's own
// when this child is the last to need it, else a copy.
func (v *verifier) take(p string) (*State, map[string]string) {
	st, files := v.states[p], v.files[p]
	v.kids[p]--
	if v.kids[p] > 0 {
		if st != nil {
			st = st.clone()
		}
		return st, files
	}
	delete(v.states, p)
	delete(v.files, p)
	return st, files
}

func (v *verifier) commit(ctx context.Context, c *Commit) {
	if len(c.Parents) > 1 {
		v.merge(ctx, c)
		v.files[c.Hash] = c.Files
		return
	}
	prevFiles := map[string]string{}
	st := &State{Task: v.task, byID: map[string]*Entry{}}
	if len(c.Parents) == 1 {
		ps, pf := v.take(c.Parents[0])
		if pf != nil {
			prevFiles = pf
		}
		if ps != nil {
			st = ps
		}
	}
	v.files[c.Hash] = c.Files
	for name, h := range prevFiles {
		switch got, ok := c.Files[name]; {
		case !ok:
			v.add(c, idOf(name), FindDropped, "drops earlier record %s", name)
		case got != h:
			v.add(c, idOf(name), FindChanged, "changes earlier record %s", name)
		}
	}
	var added []string
	for name := range c.Files {
		if _, ok := prevFiles[name]; !ok {
			added = append(added, name)
		}
	}
	sort.Strings(added)
	if len(added) != 1 {
		v.add(c, "", FindNotOne, "adds %d records; each commit adds exactly one", len(added))
	}
	prevClock := st.Clock
	for _, name := range added {
		e := v.entry(c, name)
		if e == nil {
			continue
		}
		if e.Clock != prevClock+1 {
			v.add(c, e.ID, FindClock, "clock %d follows %d; want %d", e.Clock, prevClock, prevClock+1)
		}
		v.envelope(c, e)
		v.admit(ctx, c, st, e)
		st.add(e)
	}
	v.states[c.Hash] = st
}

// entry reads, checks and decodes one record of the commit's tree, once
// per name and blob: the findings are reported with the first commit that
// holds it.
func (v *verifier) entry(c *Commit, name string) *Entry {
	key := name + "\x00" + c.Files[name]
	if e, ok := v.entries[key]; ok {
		return e
	}
	e := v.checkEntry(c, name)
	v.entries[key] = e
	return e
}

func (v *verifier) checkEntry(c *Commit, name string) *Entry {
	rec, err := v.read(c.Files[name])
	var se *SchemaError
	if errors.As(err, &se) {
		v.add(c, idOf(name), FindSchema, "%s: %s", name, strings.ReplaceAll(err.Error(), "\n ", ";"))
		return nil
	}
	if err != nil {
		v.add(c, idOf(name), FindUnreadable, "%s: %v", name, err)
		return nil
	}
	if err := CheckRecord(rec); err != nil {
		v.add(c, rec.ID, FindSchema, "%s", strings.ReplaceAll(err.Error(), "\n ", ";"))
		return nil
	}
	if rec.Task != v.task {
		v.add(c, rec.ID, FindWrongTask, "record of task %s stored under task %s", rec.Task, v.task)
	}
	if rec.FileName() != name {
		v.add(c, rec.ID, FindFileName, "stored as %s, want %s", name, rec.FileName())
	}
	e, err := Decode(rec)
	if err != nil {
		v.add(c, rec.ID, FindUnreadable, "%v", err)
		return nil
	}
	return e
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
		v.add(c, e.ID, FindInadmissible, "%s %s: %v", e.Kind, short(e.ID), err)
		return
	}
	want, _ := json.Marshal(derived)
	got, _ := json.Marshal(e.Derived)
	if !bytes.Equal(want, got) {
		v.add(c, e.ID, FindDerived, "%s %s derived %s, the writer computes %s", e.Kind, short(e.ID), got, want)
	}
}

// merge checks that a merge commit's tree is the union of its parents' and
// replays the union in (clock, id) order. The longest prefix of that order
// that a parent's state already holds, replayed in the same order, is not
// replayed again: only what the merge brings together is.
func (v *verifier) merge(ctx context.Context, c *Commit) {
	union := map[string]string{}
	type parent struct {
		st    *State
		files map[string]string
	}
	var parents []parent
	for _, p := range c.Parents {
		st, files := v.take(p)
		parents = append(parents, parent{st, files})
		for name, h := range files {
			union[name] = h
		}
	}
	for name, h := range union {
		if c.Files[name] != h {
			v.add(c, idOf(name), FindMerge, "merge drops or changes %s", name)
		}
	}
	for name := range c.Files {
		if _, ok := union[name]; !ok {
			v.add(c, idOf(name), FindMerge, "merge adds %s, which no parent has", name)
		}
	}
	var entries []*Entry
	for name := range c.Files {
		if e := v.entry(c, name); e != nil {
			entries = append(entries, e)
		}
	}
	sort.Slice(entries, func(i, j int) bool { return Less(entries[i].Record, entries[j].Record) })
	var st *State
	for _, p := range parents {
		if p.st == nil || len(p.st.Entries) > len(entries) || (st != nil && len(p.st.Entries) <= len(st.Entries)) {
			continue
		}
		prefix := true
		for i, e := range p.st.Entries {
			if entries[i] != e {
				prefix = false
				break
			}
		}
		if prefix {
			st = p.st
		}
	}
	if st == nil {
		st = &State{Task: v.task, byID: map[string]*Entry{}}
	}
	for _, e := range entries[len(st.Entries):] {
		derived, err := replayRules(ctx, st, e)
		if err != nil {
			v.add(c, e.ID, FindMergeRule, "after the merge, %s %s: %v", e.Kind, short(e.ID), err)
		} else if want, _ := json.Marshal(derived); !bytes.Equal(want, mustJSON(e.Derived)) {
			v.add(c, e.ID, FindMergeRule, "after the merge, %s %s derives %s", e.Kind, short(e.ID), want)
		}
		st.add(e)
	}
	v.states[c.Hash] = st
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
		h.model, h.endpoint = d.Model, d.Endpoint
	case *DisagreementDerived:
		h.openedBy = d.OpenedBy
	case *ValidationDerived:
		if e.Body.(*Validation).Method == "command" {
			obs := *d
			h.observed = &obs
		}
	}
	// A body the writer stored is in canonical form; re-checking it keeps
	// the replay honest about hand-made records.
	derived, err := w.rules(ctx, st, e.Kind, e.Body, h)
	if err != nil && !errors.Is(err, ErrRefused) && !errors.Is(err, ErrInput) {
		return nil, err
	}
	return derived, err
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
