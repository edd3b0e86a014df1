package ops

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"git-reason/record"
)

// RenderContext renders a context as markdown, for a pull request's
// description or a review comment, or as text for a terminal, in one
// layout: the one rendering the command line and the MCP tool share. In
// markdown every text from a record is made inert by record.Markdown, and
// every diagram label by Mermaid.
func RenderContext(r *ContextReport, f Format) string {
	p := proseFor(f)
	var b strings.Builder
	fmt.Fprintf(&b, "# Reasoning behind %s\n\n", code(r.Range))
	p.contextCounts(&b, r)
	for i := range r.Tasks {
		p.contextTask(&b, &r.Tasks[i])
	}
	if loose := r.looseCommits(); len(loose) > 0 && len(r.Tasks) > 0 {
		fmt.Fprintf(&b, "\n## Commits linked to no task (%d)\n\n", len(loose))
		for _, c := range loose {
			fmt.Fprintf(&b, "- %s %s\n", p.commit(c.Commit), p.md(c.Subject))
		}
	}
	if len(r.Unknown) > 0 {
		fmt.Fprintf(&b, "\n## Trailers naming no task here (%d)\n\n", len(r.Unknown))
		for _, u := range r.Unknown {
			fmt.Fprintf(&b, "- %s names %s: %s\n", p.commit(u.Commit), code(u.Task), p.md(p.advice(cmp.Or(u.said, record.Advice{CLI: u.Reason}))))
		}
	}
	return b.String()
}

// contextCounts is the line under a context's heading: the range, its
// ends and what it holds, or why it holds nothing.
func (p prose) contextCounts(b *strings.Builder, r *ContextReport) {
	if r.Note != "" {
		fmt.Fprintf(b, "%s.\n", p.md(r.Note))
		if r.Head == "" {
			return
		}
		b.WriteString("\n")
	}
	ends := "from " + p.commit(r.Base) + " to " + p.commit(r.Head)
	if r.Base == "" {
		ends = "up to " + p.commit(r.Head)
	}
	fmt.Fprintf(b, "%s %s: %s, %s, %s.\n", code(r.Range), ends,
		record.Plural(len(r.Commits), "commit"), record.Plural(r.Files, "file")+" changed", record.Plural(len(r.Tasks), "task"))
	if r.leftOut > 0 {
		them := "them"
		if r.leftOut == 1 {
			them = "it"
		}
		fmt.Fprintf(b, "\n> **%s on no remote left out.** This clone never shared %s: %s shows %[2]s here, `git reason push` shares %[2]s.\n",
			record.Plural(r.leftOut, "linked task"), them, code(contextCommand(r.argument())))
	}
	if len(r.Commits) > 0 && len(r.Tasks) == 0 && r.leftOut == 0 {
		fmt.Fprintf(b, "\nNo task is linked to these commits: add a `Reason-Task: TASK` trailer (%s).\n", p.advice(unlinked))
	}
}

// unlinked is where a range's commits get the trailer that links them to
// a task: a hook only the person installs.
var unlinked = record.Advice{CLI: "`git reason hooks install` adds it for the branch's task",
	Tools: "`git reason hooks install`, which the person runs (no tool installs hooks), adds it for the branch's task"}

func (p prose) contextTask(b *strings.Builder, t *ContextTask) {
	fmt.Fprintf(b, "\n## %s: %s\n\n", code(t.Task), p.md(t.Subject))
	p.contextTaskBody(b, t)
}

// contextTaskBody is a task's part of the context below its heading.
func (p prose) contextTaskBody(b *strings.Builder, t *ContextTask) {
	if t.DoesNotVerify != nil {
		fmt.Fprintf(b, "**%s**\n\n", p.md(p.advice(record.NotVerified(t.DoesNotVerify))))
	}
	if t.Decision != "" {
		fmt.Fprintf(b, "**Decision:** %s\n\n", p.md(t.Decision))
	}
	fmt.Fprintf(b, "Phase **%s** · review count **%d** · updated %s\n\n", p.md(string(t.Phase)), t.ReviewCount, p.stamp(t.Updated))
	if c := t.Closed; c != nil {
		fmt.Fprintf(b, "Closed **%s**", p.md(c.Outcome))
		if c.By != "" {
			fmt.Fprintf(b, " (replaced by task %s)", code(c.By))
		}
		fmt.Fprintf(b, " by %s, %s, closure %s", p.md(c.Actor), p.stamp(c.Created), code(c.Closure))
		if c.Reason != "" {
			fmt.Fprintf(b, ": %s", p.md(c.Reason))
		}
		b.WriteString("\n\n")
	}
	if t.LocalOnly {
		b.WriteString("**Local only:** on no remote; this clone never pushed it nor fetched it.\n\n")
	}
	if t.Weak {
		b.WriteString("Linked only weakly, through evidence citing files this range changes:\n")
	} else {
		b.WriteString("Linked by:\n")
	}
	for _, l := range t.Links {
		switch l.By {
		case LinkTrailer:
			fmt.Fprintf(b, "- the `Reason-Task` trailer of %s\n", p.commit(l.Commit))
		case LinkAttempt:
			fmt.Fprintf(b, "- attempt %s, which names %s\n", code(l.Record), p.commit(l.Commit))
		case LinkValidation:
			fmt.Fprintf(b, "- validation %s, which ran at %s\n", code(l.Record), p.commit(l.Commit))
		case LinkEvidence:
			fmt.Fprintf(b, "- evidence of %s citing %s (weak: the file changed, not necessarily for this task)\n", code(l.Record), p.md(l.File))
		}
	}
	for i := range t.Assessments {
		p.contextAssessment(b, &t.Assessments[i])
	}
	fmt.Fprintf(b, "\n```mermaid\n%s```\n", t.Mermaid)
}

func (p prose) contextAssessment(b *strings.Builder, a *record.ContextAssessment) {
	fmt.Fprintf(b, "\n### Assessment %s: %s\n\n", code(a.ID), p.md(a.Subject))
	fmt.Fprintf(b, "%s\n", p.quote(a.Question))
	fmt.Fprintf(b, "- %s, %s; by %s, %s\n", p.md(a.Materiality), p.md(a.Reversibility), p.md(a.Actor), p.stamp(a.Created))
	for _, ev := range a.Evidence {
		fmt.Fprintf(b, "- evidence %s\n", p.evidence(ev))
	}
	if r := a.Reuses; r != nil {
		fmt.Fprintf(b, "- reuses the standing conclusion %s of task %s", code(r.Conclusion), code(r.Task))
		if r.Decision != "" {
			fmt.Fprintf(b, ": %s", p.md(r.Decision))
		}
		b.WriteString(" (no new review was asked for)\n")
	}
	if pl := a.Plan; pl != nil {
		fmt.Fprintf(b, "\n**Review %s**: %s (profile %s, mode %s).", p.md(pl.Review), p.md(pl.Reason), code(pl.Profile), code(pl.Mode))
		if len(pl.Selected) > 0 {
			fmt.Fprintf(b, " Advisors asked: %s.", codes(pl.Selected))
		} else {
			b.WriteString(" No advisor was asked: the plan is a local review.")
		}
		b.WriteString("\n")
	}
	if len(a.Consultations) > 0 {
		b.WriteString("\n| advisor | answered by | outcome | summary | conclusion's treatment |\n|---|---|---|---|---|\n")
		for _, c := range a.Consultations {
			model, outcome := "", p.md(c.Status)
			if c.Model != nil {
				model = p.md(c.Model.Name) + " (" + p.md(c.Model.Source) + ")"
			}
			if c.Stance != "" {
				outcome = "**" + p.md(c.Stance) + "**"
				if c.Confidence != nil {
					outcome += " (confidence " + strconv.FormatFloat(*c.Confidence, 'f', -1, 64) + ")"
				}
			} else if c.Failure != nil {
				outcome = "failed: " + p.md(c.Failure.Kind)
			}
			treatment := p.md(c.Treatment)
			if c.Reason != "" {
				treatment += ": " + p.md(c.Reason)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", record.MarkdownCodeCell(c.Advisor), model, outcome, p.md(c.Summary), treatment)
		}
	}
	for _, d := range a.Disagreements {
		state := "open"
		if !d.Open {
			state = "resolved"
		}
		fmt.Fprintf(b, "\n**Disagreement %s** (%s; opened by %s, %s): %s", code(d.ID), state, p.md(d.OpenedBy), p.md(d.Actor), p.md(d.Summary))
		b.WriteString(citesText(d.Cites) + "\n")
		for _, r := range d.Resolutions {
			fmt.Fprintf(b, "- resolved by %s (%s): %s\n", code(r.ID), p.md(r.Actor), p.md(r.Decision))
			for _, ev := range r.Evidence {
				fmt.Fprintf(b, "  - evidence %s\n", p.evidence(ev))
			}
		}
	}
	c := a.Conclusion
	if c == nil {
		return
	}
	fmt.Fprintf(b, "\n**Conclusion %s** by %s, %s: %s\n", code(c.ID), p.md(c.Actor), p.stamp(c.Created), p.md(c.Decision))
	if !c.Standing {
		b.WriteString("(no longer standing: its latest validation failed)\n")
	}
	if c.Rationale != "" {
		fmt.Fprintf(b, "\n%s", p.quote(c.Rationale))
	}
	fmt.Fprintf(b, "\nReview count **%d**", c.ReviewCount)
	switch {
	case len(c.Advisors) > 0:
		fmt.Fprintf(b, ": answers of %s, each weighed above.\n", codes(c.Advisors))
	case len(c.LocalReview) > 0 && record.AnsweredLine(c.AnsweredBy) != "":
		fmt.Fprintf(b, ": no advisor; the local review was answered instead, %s:\n", record.AnsweredLine(c.AnsweredBy))
	case len(c.LocalReview) > 0:
		b.WriteString(": no advisor; the local review was answered instead:\n")
	default:
		b.WriteString(".\n")
	}
	for _, la := range c.LocalReview {
		fmt.Fprintf(b, "- %s — %s\n", p.md(la.Item), p.md(la.Answer))
	}
	if len(a.Validations) > 0 {
		b.WriteString("\nValidations:\n")
	}
	for _, v := range a.Validations {
		if v.Method == "manual" {
			fmt.Fprintf(b, "- %s **%s**, a manual claim by %s, %s%s\n", code(v.ID), p.md(v.Result), p.md(v.Actor), p.stamp(v.Created), p.withdrawn(v.Withdrawn))
			continue
		}
		fmt.Fprintf(b, "- %s **%s**: ran %s", code(v.ID), p.md(v.Result), code(v.Command))
		if v.Commit != "" {
			fmt.Fprintf(b, " at %s", p.commit(v.Commit))
			if v.Dirty {
				b.WriteString(" with local changes")
			}
		}
		if v.ExitCode != nil {
			fmt.Fprintf(b, " (exit %d)", *v.ExitCode)
		}
		fmt.Fprintf(b, ", %s%s\n", p.stamp(v.Created), p.withdrawn(v.Withdrawn))
	}
	if len(a.Attempts) > 0 {
		b.WriteString("\nAttempts:\n")
	}
	for _, at := range a.Attempts {
		fmt.Fprintf(b, "- %s %s", code(at.ID), p.md(at.Outcome))
		if len(at.Commits) > 0 {
			cs := make([]string, len(at.Commits))
			for i, c := range at.Commits {
				cs[i] = p.commit(c)
			}
			fmt.Fprintf(b, ": %s", strings.Join(cs, ", "))
		}
		if at.Notes != "" {
			fmt.Fprintf(b, " (%s)", p.md(at.Notes))
		}
		fmt.Fprintf(b, "%s\n", p.withdrawn(at.Withdrawn))
	}
}

// withdrawn says, after a validation or attempt, that a withdrawal
// names it (derivation ignores it), by whom and why; "" when none does.
func (p prose) withdrawn(w *record.ContextWithdrawal) string {
	if w == nil {
		return ""
	}
	return fmt.Sprintf("; **withdrawn** by %s (%s): %s", code(w.ID), p.md(w.Actor), p.md(w.Reason))
}

// argument is the range as 'git reason context' takes it to show the same
// commits: none for HEAD's whole history, which is the default's when it
// found no base (one revision R would be read as R..HEAD).
func (r *ContextReport) argument() string {
	if r.Base == "" {
		return ""
	}
	return r.Range
}

// looseCommits are the commits of the range linked to no task.
func (r *ContextReport) looseCommits() []ContextCommit {
	var loose []ContextCommit
	for _, c := range r.Commits {
		if len(c.Tasks) == 0 {
			loose = append(loose, c)
		}
	}
	return loose
}

// fullHash is compiled on first use, not at start-up.
var fullHash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}$`) })

// commit shows a full hash bare, so that a forge links it to the commit;
// anything else a record holds is inert text.
func (p prose) commit(h string) string {
	if fullHash().MatchString(h) {
		return h
	}
	return p.md(h)
}

func codes(xs []string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = code(x)
	}
	return strings.Join(out, ", ")
}

func (p prose) evidence(ev record.Evidence) string {
	if ev.Ref == "" {
		return fmt.Sprintf("(%s): %s", p.md(ev.Kind), p.md(ev.Summary))
	}
	return fmt.Sprintf("(%s %s): %s", p.md(ev.Kind), p.md(ev.Ref), p.md(ev.Summary))
}
