package record

import "strings"

// Text is one text of a record that search reads: which field, and what
// it says.
type Text struct {
	Field string `json:"field"`
	Text  string `json:"text"`
}

// Texts returns what a person wrote or an advisor answered in a record:
// subjects, questions, decisions, rationales, evidence, answers,
// summaries, notes and reasons; empty texts are left out.
func Texts(e *Entry) []Text {
	var out []Text
	add := func(field, text string) {
		if text = strings.TrimSpace(text); text != "" {
			out = append(out, Text{Field: field, Text: text})
		}
	}
	evidence := func(evs []Evidence) {
		for _, ev := range evs {
			add("evidence", strings.TrimSpace(ev.Ref+" "+ev.Summary))
		}
	}
	switch b := e.Body.(type) {
	case *Assessment:
		add("subject", b.Subject)
		add("question", b.Question)
		evidence(b.Evidence)
	case *Consultation:
		if c := b.Conclusion; c != nil {
			add("answer", c.Summary)
			for _, r := range c.Recommendations {
				add("answer", r)
			}
			for _, r := range c.Risks {
				add("answer", r)
			}
		}
	case *Disagreement:
		add("summary", b.Summary)
	case *Resolution:
		add("resolution", b.Decision)
		evidence(b.Evidence)
	case *Conclusion:
		add("decision", b.Decision)
		add("rationale", b.Rationale)
		for _, w := range b.Weighed {
			add("weighed", w.Reason)
		}
		for _, la := range b.LocalReview {
			add("answer", la.Answer)
		}
	case *Validation:
		add("command", b.Command)
		evidence(b.Evidence)
	case *Attempt:
		add("notes", b.Notes)
	case *Closure:
		add("reason", b.Reason)
	case *Reopening:
		add("reason", b.Reason)
	case *Withdrawal:
		add("reason", b.Reason)
	}
	return out
}
