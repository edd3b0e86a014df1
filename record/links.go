package record

import "sync/atomic"

// The links of a record are the ids it names that the state's questions
// select by: a plan's, a disagreement's and a conclusion's assessment
// (and then the conclusions a conclusion supersedes), a consultation's
// plan, a resolution's disagreement, a validation's and an attempt's
// conclusion, a withdrawal's record, a reopening's closure. A state asks
// them of an entry before decoding it, so that "the plans of this
// assessment" decodes those plans, not every plan of the task: a lazy
// entry (Base.Lazy) may carry its links, as its record's decoding gave
// them once (Base.Links), and is decoded only when it is selected.

// linkReads counts the links read (links), which a test holds the
// state's questions to.
var linkReads atomic.Int64

// linksOf is the links of a decoded body.
func linksOf(body any) []string {
	switch b := body.(type) {
	case *Plan:
		return []string{b.Assessment}
	case *Consultation:
		return []string{b.Plan}
	case *Disagreement:
		return []string{b.Assessment}
	case *Resolution:
		return []string{b.Disagreement}
	case *Conclusion:
		return append([]string{b.Assessment}, b.Supersedes...)
	case *Validation:
		return []string{b.Conclusion}
	case *Attempt:
		return []string{b.Conclusion}
	case *Withdrawal:
		return []string{b.Record}
	case *Reopening:
		return []string{b.Closure}
	}
	return nil
}

// links is e's links, from the entry when it carries them undecoded,
// else from its body (decoding it).
func (s *State) links(e *Entry) []string {
	linkReads.Add(1)
	if e.Body == nil && e.linked {
		return e.refs
	}
	return linksOf(s.ready(e).Body)
}

// names reports whether e's first link is id.
func (s *State) names(e *Entry, id string) bool {
	l := s.links(e)
	return len(l) > 0 && l[0] == id
}

// Links is the links of every entry of the state by record id, for a
// saved state to keep beside its records (Base.Links); entries that
// carry theirs are not decoded for it.
func (s *State) Links() map[string][]string { return s.every((*State).links) }

// LinksOf is Links for the entries of ids alone (those the state holds),
// for a saved state that appends the records added since it was saved.
func (s *State) LinksOf(ids []string) map[string][]string { return s.each(ids, (*State).links) }

// every is part (the links, or the facts) of every entry of the state that
// has some, by record id.
func (s *State) every(part func(*State, *Entry) []string) map[string][]string {
	out := make(map[string][]string, len(s.Entries))
	for _, e := range s.Entries {
		if p := part(s, e); len(p) > 0 {
			out[e.ID] = p
		}
	}
	return out
}

// each is every for the entries of ids alone (those the state holds).
func (s *State) each(ids []string, part func(*State, *Entry) []string) map[string][]string {
	out := make(map[string][]string, len(ids))
	for _, id := range ids {
		if e := s.byID[id]; e != nil {
			if p := part(s, e); len(p) > 0 {
				out[id] = p
			}
		}
	}
	return out
}
