package ops

import "git-reason/record"

// Lists returns r with every nil list in it, at any depth, an empty one:
// the published handover output has [] for none, never null. The command
// line prints it so (cli's writeHandoverJSON) and MCP sends it so; a task
// derived, or read from its row, may hold nil for a list it lacks (the
// standing conclusions of a task that has none).
func (r *HandoverReport) Lists() *HandoverReport {
	out := *r
	out.Open, out.Settled = handoverLists(r.Open), handoverLists(r.Settled)
	out.Circuits = make([]AdvisorRow, len(r.Circuits))
	for i, a := range r.Circuits {
		a.Capabilities = orEmpty(a.Capabilities)
		out.Circuits[i] = a
	}
	if r.Signatures != nil {
		out.Signatures = make(map[string]*SignatureSummary, len(r.Signatures))
		for task, s := range r.Signatures {
			if s != nil && s.Signers == nil {
				c := *s
				c.Signers = []string{}
				s = &c
			}
			out.Signatures[task] = s
		}
	}
	return &out
}

// handoverLists is hs, each with its lists made non-nil (HandoverLists).
func handoverLists(hs []record.Handover) []record.Handover {
	out := make([]record.Handover, len(hs))
	for i := range hs {
		out[i] = HandoverLists(hs[i])
	}
	return out
}

// HandoverLists returns h with every nil list of it, and of what it holds,
// an empty one.
func HandoverLists(h record.Handover) record.Handover {
	h.Actors = orEmpty(h.Actors)
	h.LocalReview = orEmpty(h.LocalReview)
	h.Missing = orEmpty(h.Missing)
	h.Consultations = orEmpty(h.Consultations)
	h.Standing = orEmpty(h.Standing)
	if h.Disagreements == nil {
		h.Disagreements = []record.HandoverDispute{}
	} else {
		for i := range h.Disagreements {
			if h.Disagreements[i].Cites == nil {
				ds := append([]record.HandoverDispute(nil), h.Disagreements...)
				for j := range ds {
					ds[j].Cites = orEmpty(ds[j].Cites)
				}
				h.Disagreements = ds
				break
			}
		}
	}
	if h.Attempt != nil && h.Attempt.Commits == nil {
		a := *h.Attempt
		a.Commits = []string{}
		h.Attempt = &a
	}
	return h
}

// orEmpty is s, or an empty list when s is nil.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
