package record

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"unicode"
)

// Phase is where a task stands, judged by its latest assessment.
type Phase string

// The phases a task passes through.
const (
	PhaseEmpty      Phase = "empty"      // no assessment yet
	PhaseAssessed   Phase = "assessed"   // assessed, not planned
	PhasePlanned    Phase = "planned"    // planned, nothing consulted
	PhaseConsulting Phase = "consulting" // consultations recorded, not concluded
	PhaseDisputed   Phase = "disputed"   // a disagreement is open
	PhaseConcluded  Phase = "concluded"  // concluded, not validated
	PhaseValidated  Phase = "validated"  // the conclusion's latest validation passed
	PhaseReused     Phase = "reused"     // the assessment reuses a standing conclusion
)

// Entry is a record with its body and derived fields decoded.
type Entry struct {
	*Record
	Body    any // *Assessment, *Plan, ...
	Derived any // *AssessmentDerived, *PlanDerived, ...

	// refs are the links of a lazy entry (links.go), when linked.
	refs   []string
	linked bool
	// known are the facts of a lazy entry (facts.go), when given.
	known []string
}

// decodes counts the records Decode has decoded (Decodes).
var decodes atomic.Int64

// Decodes is how many records this process has decoded (Decode): what a
// test holds a read to, so that a record is decoded once, not once per
// reader.
func Decodes() int64 { return decodes.Load() }

// Decode returns the record with its typed body and derived fields.
func Decode(r *Record) (*Entry, error) {
	decodes.Add(1)
	e := &Entry{Record: r, Body: newBody(r.Kind), Derived: newDerived(r.Kind)}
	if e.Body == nil {
		return nil, fmt.Errorf("record %s has unknown kind %q", r.ID, r.Kind)
	}
	if err := json.Unmarshal(r.Body, e.Body); err != nil {
		return nil, fmt.Errorf("decode %s body of %s: %w", r.Kind, r.ID, err)
	}
	if len(r.Derived) > 0 {
		if err := json.Unmarshal(r.Derived, e.Derived); err != nil {
			return nil, fmt.Errorf("decode %s derived of %s: %w", r.Kind, r.ID, err)
		}
	}
	return e, nil
}

// Standing is a conclusion that still holds: no later conclusion
// supersedes it and no later validation failed it.
type Standing struct {
	Task       string `json:"task"`
	Conclusion string `json:"conclusion"`
	Assessment string `json:"assessment"`
	SubjectKey string `json:"subject_key"`
	Decision   string `json:"decision"`
	Clock      int64  `json:"clock"`
	// Who concluded, and how demanding the assessment was: a reuse names
	// the actor, and only a conclusion at least as demanding is reused.
	Actor         string `json:"actor"`
	Materiality   string `json:"materiality"`
	Reversibility string `json:"reversibility"`
}

// State is everything derived from a task's records. It is a pure function
// of the records: Derive builds it, nothing else changes it.
type State struct {
	Task    string
	Entries []*Entry // in (clock, id) order
	Clock   int64    // the highest clock seen
	// Unverified is the first finding of a replay of the task's history,
	// nil when it replays clean or was not replayed. A state with one was
	// built by Recompute: what surfaces show of it is recomputed, and
	// they say first that the history does not verify.
	Unverified *Finding
	// Refused are the records Recompute left out, the rules refusing
	// them: history keeps them, log and show still show them.
	Refused []*Entry

	byID map[string]*Entry
	// lazy: entries are decoded when a method of the state first hands
	// them out (see deriveLazy); undecodable is the first that did not.
	lazy        bool
	undecodable error
	// withdrawals by the record they name, built on first use and
	// dropped by add (see Withdrawn).
	withdrawals map[string]*Entry
}

// Derive builds the state of a task from its records, in any order.
func Derive(task string, recs []*Record) (*State, error) {
	st := &State{Task: task, byID: make(map[string]*Entry, len(recs))}
	for _, r := range sortedRecords(recs) {
		e, err := Decode(r)
		if err != nil {
			return nil, err
		}
		st.add(e)
	}
	return st, nil
}

func sortedRecords(recs []*Record) []*Record {
	sorted := append([]*Record(nil), recs...)
	slices.SortStableFunc(sorted, Compare)
	return sorted
}

// deriveLazy is Derive for the writer's admission, over records that each
// decode (a DecodingStore's): an entry's body and derived fields are
// decoded when a method of the state first hands the entry out, so that
// admitting a record decodes the few records its rule reads rather than
// the whole task. Its Entries must be read through those methods only.
// Should an entry not decode after all, the state says so (decodeError)
// and the caller derives the task in full for Derive's error.
func deriveLazy(task string, recs []*Record) *State {
	st := &State{Task: task, byID: make(map[string]*Entry, len(recs)), lazy: true}
	for _, r := range sortedRecords(recs) {
		st.add(&Entry{Record: r})
	}
	return st
}

// copy is a state with the same entries (shared: an entry decoded in one
// is decoded in both), to which add may add without changing s.
func (s *State) copy() *State {
	return &State{Task: s.Task, Entries: slices.Clone(s.Entries), Clock: s.Clock, Unverified: s.Unverified,
		Refused: s.Refused, byID: maps.Clone(s.byID), lazy: s.lazy, undecodable: s.undecodable}
}

// ready decodes a lazily derived entry on its first use and returns it.
//
// An entry is lazy when its Body is nil (Decode always sets one): those of
// a lazily derived state, and those a replay took from a lazy base
// (Base.Lazy), which the states it extends or clones share.
func (s *State) ready(e *Entry) *Entry {
	if e == nil || e.Body != nil {
		return e
	}
	d, err := Decode(e.Record)
	if err != nil {
		if s.undecodable == nil {
			s.undecodable = err
		}
		// Zero values of the kind's types keep the rules running to their
		// end; the caller then refuses the task with Derive's error.
		e.Body, e.Derived = newBody(e.Kind), newDerived(e.Kind)
		return e
	}
	e.Body, e.Derived = d.Body, d.Derived
	return e
}

// decodeError is the error of the first entry a lazily derived state
// could not decode, nil when every entry it handed out decoded.
func (s *State) decodeError() error { return s.undecodable }

func (s *State) add(e *Entry) {
	s.withdrawals = nil
	s.Entries = append(s.Entries, e)
	s.byID[e.ID] = e
	if e.Clock > s.Clock {
		s.Clock = e.Clock
	}
}

// Get returns the record with the full id, or nil.
func (s *State) Get(id string) *Entry { return s.ready(s.byID[id]) }

// LatestAssessment returns the task's latest assessment, or nil.
func (s *State) LatestAssessment() *Entry { return s.latest(KindAssessment, nil) }

// LatestID returns the id of the task's latest record of kind k, "" when
// it has none. It decodes no record, so that a state shared between
// readers is only read.
func (s *State) LatestID(k Kind) string {
	for i := len(s.Entries) - 1; i >= 0; i-- {
		if s.Entries[i].Kind == k {
			return s.Entries[i].ID
		}
	}
	return ""
}

// latest returns the last entry of kind k that keep accepts (nil keeps
// all); keep decodes what it reads (ready), so that it may select by
// links alone.
func (s *State) latest(k Kind, keep func(*Entry) bool) *Entry {
	for i := len(s.Entries) - 1; i >= 0; i-- {
		e := s.Entries[i]
		if e.Kind == k && (keep == nil || keep(e)) {
			return s.ready(e)
		}
	}
	return nil
}

// all returns the entries of kind k that keep accepts, in order.
func (s *State) all(k Kind, keep func(*Entry) bool) []*Entry {
	return s.allTo(k, "", keep)
}

// allTo is all of the entries that name to first (links.go; any when to
// is ""): the others are not decoded.
func (s *State) allTo(k Kind, to string, keep func(*Entry) bool) []*Entry {
	var out []*Entry
	for _, e := range s.Entries {
		if e.Kind == k && (to == "" || s.names(e, to)) && (keep == nil || keep(s.ready(e))) {
			out = append(out, s.ready(e))
		}
	}
	return out
}

// latestTo is latest of the entries that name to first (links.go).
func (s *State) latestTo(k Kind, to string, keep func(*Entry) bool) *Entry {
	return s.latest(k, func(e *Entry) bool { return s.names(e, to) && (keep == nil || keep(s.ready(e))) })
}

// LatestPlan returns the latest plan for an assessment, or nil.
func (s *State) LatestPlan(assessment string) *Entry {
	return s.latestTo(KindPlan, assessment, nil)
}

// Consultations returns the consultations answering any plan of an
// assessment, in order.
func (s *State) Consultations(assessment string) []*Entry {
	var out []*Entry
	for _, e := range s.Entries {
		if e.Kind != KindConsultation {
			continue
		}
		if l := s.links(e); len(l) > 0 {
			if p := s.byID[l[0]]; p != nil && p.Kind == KindPlan && s.names(p, assessment) {
				out = append(out, s.ready(e))
			}
		}
	}
	return out
}

// AnsweredBy returns the completed consultation in which advisor answered
// plan, or nil. One answer per advisor and plan is an admission rule: the
// writer refuses a second, and the consult driver asks this first so that
// no advisor is asked for an answer the writer would refuse.
func (s *State) AnsweredBy(plan, advisor string) *Entry {
	for _, e := range s.Entries {
		if e.Kind != KindConsultation || !s.names(e, plan) {
			continue
		}
		if b := s.ready(e).Body.(*Consultation); b.Plan == plan && b.Advisor == advisor && b.Status == "completed" {
			return e
		}
	}
	return nil
}

// Completed returns the completed consultations of an assessment.
func (s *State) Completed(assessment string) []*Entry {
	var out []*Entry
	for _, e := range s.Consultations(assessment) {
		if e.Body.(*Consultation).Status == "completed" {
			out = append(out, e)
		}
	}
	return out
}

// OpenDisagreements returns the disagreements no resolution has settled,
// on the assessment given, or on any when assessment is "".
func (s *State) OpenDisagreements(assessment string) []*Entry {
	settled := map[string]bool{}
	for _, e := range s.Entries {
		if e.Kind == KindResolution {
			if l := s.links(e); len(l) > 0 {
				settled[l[0]] = true
			}
		}
	}
	return s.allTo(KindDisagreement, assessment, func(e *Entry) bool { return !settled[e.ID] })
}

// IsOpenDisagreement reports whether id names an unsettled disagreement.
func (s *State) IsOpenDisagreement(id string) bool {
	for _, e := range s.OpenDisagreements("") {
		if e.ID == id {
			return true
		}
	}
	return false
}

// ConclusionOf returns the conclusion of an assessment that stands
// (the latest, should a merge have left two), or nil.
func (s *State) ConclusionOf(assessment string) *Entry {
	cur := s.Conclusions(assessment)
	if len(cur) == 0 {
		return nil
	}
	return cur[len(cur)-1]
}

// Conclusions returns the conclusions of an assessment that no later
// conclusion supersedes, in order. A writer leaves at most one; a merge
// of two clones that both concluded leaves two, until a conclusion
// written after the merge supersedes both.
func (s *State) Conclusions(assessment string) []*Entry {
	all := s.allTo(KindConclusion, assessment, nil)
	if len(all) < 2 {
		return all
	}
	gone := superseded(all)
	out := all[:0:0]
	for _, e := range all {
		if !gone[e.ID] {
			out = append(out, e)
		}
	}
	return out
}

// superseded returns the ids the conclusions given supersede.
func superseded(conclusions []*Entry) map[string]bool {
	gone := map[string]bool{}
	for _, e := range conclusions {
		for _, id := range e.Body.(*Conclusion).Supersedes {
			gone[id] = true
		}
	}
	return gone
}

// AssessmentOf returns the id of the assessment a record is about (its
// own for an assessment; through the plan, disagreement or conclusion it
// names for the others), or "" when the chain names no record here.
func (s *State) AssessmentOf(e *Entry) string {
	for range 3 {
		if e == nil {
			return ""
		}
		var next string
		switch b := s.ready(e).Body.(type) {
		case *Assessment:
			return e.ID
		case *Plan:
			return b.Assessment
		case *Disagreement:
			return b.Assessment
		case *Conclusion:
			return b.Assessment
		case *Consultation:
			next = b.Plan
		case *Resolution:
			next = b.Disagreement
		case *Validation:
			next = b.Conclusion
		case *Attempt:
			next = b.Conclusion
		}
		e = s.Get(next)
	}
	return ""
}

// Settled reports whether a record that a merge made inadmissible is
// settled: a conclusion of the record's assessment comes after it (its
// clock above the record's) in the order replay admits records.
// Admitted, such a conclusion superseded every conclusion of the
// assessment that stood before it, the refused one among them, with no
// disagreement open and every completed consultation weighed, so after
// it one conclusion stands, reached with everything before it; not
// admitted, it is a finding of its own. Records are never removed,
// so once settled a refusal stays settled, whichever later merge of the
// history replays it again.
func (s *State) Settled(record string) bool {
	r := s.Get(record)
	a := s.AssessmentOf(r)
	if a == "" {
		return false
	}
	for i := len(s.Entries) - 1; i >= 0 && s.Entries[i].Clock > r.Clock; i-- {
		if e := s.Entries[i]; e.Kind == KindConclusion && s.names(e, a) {
			return true
		}
	}
	return false
}

// LatestValidation returns the latest validation of a conclusion that is
// not withdrawn, or nil.
func (s *State) LatestValidation(conclusion string) *Entry {
	return s.latestTo(KindValidation, conclusion, s.notWithdrawn)
}

// Holds reports whether a conclusion still stands: its latest validation,
// if any, did not fail.
func (s *State) Holds(conclusion string) bool {
	v := s.LatestValidation(conclusion)
	return v == nil || v.Derived.(*ValidationDerived).Result != "fail"
}

// Standing returns the task's standing conclusions, latest last.
func (s *State) Standing() []Standing {
	var out []Standing
	gone := map[string]bool{}
	for _, e := range s.Entries {
		if e.Kind != KindConclusion {
			continue
		}
		if l := s.links(e); len(l) > 1 {
			for _, id := range l[1:] {
				gone[id] = true
			}
		}
	}
	latest := s.latestValidations(func(id string) bool { return !gone[id] })
	for _, c := range s.Entries {
		if c.Kind != KindConclusion || gone[c.ID] {
			continue
		}
		if v := latest[c.ID]; v != nil && s.facts(v)[0] == "fail" {
			continue // Holds: its latest validation failed
		}
		if st, ok := s.standingOf(c); ok {
			out = append(out, st)
		}
	}
	return out
}

// latestValidations is LatestValidation of every conclusion want
// accepts, from one pass over the entries rather than one per
// conclusion (a task of a hundred conclusions and a thousand records
// read a hundred thousand links for its standing conclusions). It
// decodes no validation: which are withdrawn is read from the
// withdrawals' links, a validation's result from its facts (facts.go).
func (s *State) latestValidations(want func(conclusion string) bool) map[string]*Entry {
	out := map[string]*Entry{}
	for i := len(s.Entries) - 1; i >= 0; i-- {
		e := s.Entries[i]
		if e.Kind != KindValidation {
			continue
		}
		l := s.links(e)
		if len(l) == 0 || !want(l[0]) {
			continue
		}
		if _, done := out[l[0]]; !done && s.notWithdrawn(e) {
			out[l[0]] = e
		}
	}
	return out
}

// standingOf is conclusion c as a Standing: what the writer reuses from
// and what a reuse of it is checked against (matchReuse). false: its
// assessment is not in the task. It reads the links and facts of c and
// of its assessment (facts.go), decoding neither when they carry them.
func (s *State) standingOf(c *Entry) (Standing, bool) {
	l := s.links(c) // a conclusion's first link: its assessment
	if len(l) == 0 {
		return Standing{}, false
	}
	a := s.byID[l[0]]
	if a == nil || a.Kind != KindAssessment {
		return Standing{}, false
	}
	af := s.facts(a)
	return Standing{Task: s.Task, Conclusion: c.ID, Assessment: a.ID,
		SubjectKey: af[0], Decision: s.facts(c)[0], Clock: c.Clock,
		Actor: c.Actor, Materiality: af[1], Reversibility: af[2]}, true
}

// Phase says where the task stands, judged by its latest assessment.
func (s *State) Phase() Phase {
	a := s.LatestAssessment()
	if a == nil {
		return PhaseEmpty
	}
	if c := s.ConclusionOf(a.ID); c != nil {
		if v := s.LatestValidation(c.ID); v != nil && v.Derived.(*ValidationDerived).Result == "pass" {
			return PhaseValidated
		}
		return PhaseConcluded
	}
	if len(s.OpenDisagreements(a.ID)) > 0 {
		return PhaseDisputed
	}
	if len(s.Consultations(a.ID)) > 0 {
		return PhaseConsulting
	}
	if s.LatestPlan(a.ID) != nil {
		return PhasePlanned
	}
	if a.Derived.(*AssessmentDerived).Reuses != "" {
		return PhaseReused
	}
	return PhaseAssessed
}

// ReviewCount is the number of completed consultations the latest
// assessment received: the review that is a recorded fact.
func (s *State) ReviewCount() int {
	a := s.LatestAssessment()
	if a == nil {
		return 0
	}
	if c := s.ConclusionOf(a.ID); c != nil {
		return c.Derived.(*ConclusionDerived).ReviewCount
	}
	return len(s.Completed(a.ID))
}

// SubjectKey normalises a subject so that spellings of one subject meet:
// case folded, every run of non-letters and non-digits a single space.
func SubjectKey(subject string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(subject) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			continue
		}
		space = true
	}
	return b.String()
}
