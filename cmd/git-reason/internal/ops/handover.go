package ops

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"git-reason/record"
)

// HandoverQuery narrows a handover.
type HandoverQuery struct {
	Since time.Time // settled tasks are listed when concluded or validated at or after it
	Task  string    // "": every task
	Actor string    // "": any; else only tasks with a record by this actor ("Name <email>", the name or the email)
}

// HandoverReport is where things stand, derived from the refs alone: every
// task not finished, then the tasks settled since Since. Circuits are the
// advisors an open task waits on or failed with that are not available now, read from the local journal; they
// are empty, with CircuitsError set, when the declarations do not read.
type HandoverReport struct {
	Since         string            `json:"since"`
	Open          []record.Handover `json:"open"`
	Settled       []record.Handover `json:"settled"`
	Circuits      []AdvisorRow      `json:"circuits"`
	CircuitsError string            `json:"circuits_error,omitempty"`
}

// Handover derives the handover of every task (or the one named).
func (e *Session) Handover(ctx context.Context, q HandoverQuery) (*HandoverReport, error) {
	out := &HandoverReport{Since: q.Since.UTC().Format(time.RFC3339), Open: []record.Handover{}, Settled: []record.Handover{}, Circuits: []AdvisorRow{}}
	var all []record.Handover
	if q.Task == "" {
		// Every task: from the cache keyed by each task's head, so only
		// the tasks that moved since the last read are derived again.
		hs, err := e.Index.Handovers(ctx)
		if err != nil {
			return nil, err
		}
		all = hs
	} else {
		st, _, err := e.State(ctx, q.Task)
		if err != nil {
			return nil, err
		}
		all = []record.Handover{st.Handover()}
	}
	for _, h := range all {
		if q.Actor != "" && !anyActor(h.Actors, q.Actor) {
			continue
		}
		switch {
		case !h.Finished:
			out.Open = append(out.Open, h)
		case h.Settled != "" && !settledBefore(h.Settled, q.Since):
			out.Settled = append(out.Settled, h)
		}
	}
	sort.SliceStable(out.Settled, func(i, j int) bool { return out.Settled[i].Settled > out.Settled[j].Settled })
	if len(out.Open) == 0 {
		return out, nil
	}
	list, err := e.Advisors(ctx)
	if err != nil {
		out.CircuitsError = err.Error()
		return out, nil
	}
	// Only the circuits of advisors an open task waits on or failed with.
	relevant := map[string]bool{}
	for _, h := range out.Open {
		for _, a := range h.Missing {
			relevant[a] = true
		}
		for _, c := range h.Consultations {
			relevant[c.Advisor] = true
		}
	}
	for _, a := range list.Advisors {
		if a.Status != "available" && relevant[a.ID] {
			out.Circuits = append(out.Circuits, a)
		}
	}
	return out, nil
}

// ParseSince reads a --since value as log and handover take it: an RFC
// 3339 time, a date, or an age before now (36h, 7d, 2w).
func ParseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, err := strconv.Atoi(strings.TrimSuffix(s, suffix)); err == nil && strings.HasSuffix(s, suffix) && n >= 0 {
			return now.Add(-time.Duration(n) * unit), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, Usage("--since %q: give a date (2026-01-31), an RFC 3339 time, or an age (36h, 7d, 2w)", s)
}

func settledBefore(created string, since time.Time) bool {
	t, err := time.Parse(time.RFC3339Nano, created)
	return err == nil && t.Before(since)
}

// anyActor reports whether one of actors ("Name <email>") is who: the
// whole of it, its name, or its email (in any case, as mail systems
// compare them).
func anyActor(actors []string, who string) bool {
	who = strings.TrimSpace(who)
	for _, a := range actors {
		name, email := a, ""
		if i := strings.LastIndex(a, " <"); i >= 0 && strings.HasSuffix(a, ">") {
			name, email = a[:i], a[i+2:len(a)-1]
		}
		if a == who || name == who || (email != "" && strings.EqualFold(email, strings.Trim(who, "<>"))) {
			return true
		}
	}
	return false
}

// md is record text made inert for markdown.
func md(s string) string { return record.Markdown(s) }

// code is a value the tool made (an id, a command, a phase) shown as code;
// a backtick in it is dropped, never able to close the span.
func code(s string) string {
	return "`" + strings.ReplaceAll(record.Printable(s), "`", "'") + "`"
}

// HandoverMarkdown renders a handover as markdown: the one rendering the
// command line and any page share. Every text that comes from a record is
// escaped by record.Markdown.
func HandoverMarkdown(r *HandoverReport) string {
	var b strings.Builder
	b.WriteString("# Handover\n\n")
	if len(r.Open) == 0 {
		b.WriteString("No task is open.\n")
	} else {
		fmt.Fprintf(&b, "## Open (%d)\n", len(r.Open))
		for i := range r.Open {
			handoverTask(&b, &r.Open[i])
		}
	}
	if len(r.Circuits) > 0 || r.CircuitsError != "" {
		b.WriteString("\n## Advisors not available now\n\n")
		for _, a := range r.Circuits {
			until := ""
			if a.Until != "" {
				until = " until " + stamp(a.Until)
			}
			fmt.Fprintf(&b, "- %s: %s%s: %s\n", code(a.ID), md(a.Status), until, md(a.Reason))
		}
		if r.CircuitsError != "" {
			fmt.Fprintf(&b, "- the advisors' declarations do not read: %s\n", md(r.CircuitsError))
		}
	}
	fmt.Fprintf(&b, "\n## Settled since %s (%d)\n\n", stamp(r.Since), len(r.Settled))
	if len(r.Settled) == 0 {
		b.WriteString("None.\n")
	}
	for _, h := range r.Settled {
		fmt.Fprintf(&b, "- %s %s: %s", code(h.Task), md(string(h.Phase)), md(h.Subject))
		if n := len(h.Standing); n > 0 {
			fmt.Fprintf(&b, ": %s", md(h.Standing[n-1].Decision))
		}
		fmt.Fprintf(&b, " (%s)\n", stamp(h.Settled))
	}
	return b.String()
}

func handoverTask(b *strings.Builder, h *record.Handover) {
	fmt.Fprintf(b, "\n### %s: %s\n\n", code(h.Task), md(h.Subject))
	fmt.Fprintf(b, "- phase: **%s**, updated %s, by %s\n", md(string(h.Phase)), stamp(h.Updated), mdList(h.Actors))
	if h.Next != "" {
		fmt.Fprintf(b, "- next: %s\n", code(h.Next))
	}
	for _, d := range h.Disagreements {
		fmt.Fprintf(b, "- open disagreement %s by %s (%s): %s", code(d.ID), md(d.Actor), md(d.OpenedBy), md(d.Summary))
		if len(d.Cites) > 0 {
			cites := make([]string, len(d.Cites))
			for i, c := range d.Cites {
				cites[i] = code(c)
			}
			fmt.Fprintf(b, "; cites %s", strings.Join(cites, ", "))
		}
		b.WriteString("\n")
	}
	for _, item := range h.LocalReview {
		fmt.Fprintf(b, "- unanswered local review: %s\n", md(item))
	}
	if r := h.Reuse; r != nil {
		fmt.Fprintf(b, "- reuses standing conclusion %s of %s", code(r.Conclusion), code(r.Task))
		if r.Actor != "" {
			fmt.Fprintf(b, " by %s", md(r.Actor))
		}
		b.WriteString("\n")
	}
	for _, c := range h.Consultations {
		fmt.Fprintf(b, "- %s %s", code(c.Advisor), md(c.Status))
		if c.Failures > 1 {
			fmt.Fprintf(b, " %d times, the last", c.Failures)
		}
		if c.Failure != "" {
			fmt.Fprintf(b, ": %s", md(c.Failure))
		}
		if c.Detail != "" {
			fmt.Fprintf(b, " (%s)", md(c.Detail))
		}
		fmt.Fprintf(b, " in %s\n", code(c.ID))
	}
	for _, a := range h.Missing {
		fmt.Fprintf(b, "- not asked yet: %s\n", code(a))
	}
	for _, s := range h.Standing {
		fmt.Fprintf(b, "- standing conclusion %s: %s\n", code(s.Conclusion), md(s.Decision))
	}
	if v := h.Validation; v != nil {
		fmt.Fprintf(b, "- last validation %s: %s (%s", code(v.ID), md(v.Result), md(v.Method))
		if v.Command != "" {
			fmt.Fprintf(b, " %s", code(v.Command))
		}
		fmt.Fprintf(b, ") by %s, %s\n", md(v.Actor), stamp(v.Created))
	}
	if a := h.Attempt; a != nil {
		fmt.Fprintf(b, "- last attempt %s: %s\n", code(a.ID), md(a.Outcome))
	}
}

func mdList(xs []string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = md(x)
	}
	return strings.Join(out, ", ")
}

// stamp shows a time as it is when it is one, else as inert text.
func stamp(s string) string {
	if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return s
	}
	return md(s)
}
