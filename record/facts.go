package record

// The facts of a record are the few fields of its body and derived parts
// that a state's standing conclusions read (Standing) beyond its envelope
// and its links: a conclusion's decision; an assessment's subject key,
// materiality and reversibility; a validation's result. Like the links,
// a lazy entry (Base.Lazy) may carry them, as its record's decoding gave
// them once (Base.Facts), so that the standing conclusions of a task of a
// hundred conclusions decode none of them, their assessments or their
// validations. Other kinds have none.

// factsLen is how many facts a record of kind has.
func factsLen(k Kind) int {
	switch k {
	case KindConclusion, KindValidation:
		return 1
	case KindAssessment:
		return 3
	}
	return 0
}

// factsOf is the facts of a decoded entry.
func factsOf(e *Entry) []string {
	switch b := e.Body.(type) {
	case *Conclusion:
		return []string{b.Decision}
	case *Assessment:
		return []string{e.Derived.(*AssessmentDerived).SubjectKey, b.Materiality, b.Reversibility}
	case *Validation:
		return []string{e.Derived.(*ValidationDerived).Result}
	}
	return nil
}

// facts is e's facts, from the entry when it carries them undecoded,
// else from its body and derived fields (decoding it); nil for a kind
// that has none.
func (s *State) facts(e *Entry) []string {
	n := factsLen(e.Kind)
	if n == 0 {
		return nil
	}
	if e.Body == nil && len(e.known) == n {
		return e.known
	}
	return factsOf(s.ready(e))
}

// Facts is the facts of every entry of the state that has some, by record
// id, for a saved state to keep beside its records (Base.Facts); entries
// that carry theirs are not decoded for it.
func (s *State) Facts() map[string][]string { return s.every((*State).facts) }

// FactsOf is Facts for the entries of ids alone (those the state holds),
// for a saved state that appends the records added since it was saved.
func (s *State) FactsOf(ids []string) map[string][]string { return s.each(ids, (*State).facts) }
