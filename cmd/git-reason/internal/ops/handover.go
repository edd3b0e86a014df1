package ops

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
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
	// Signatures says, for each open task, who signed its records.
	Signatures map[string]*SignatureSummary `json:"signatures,omitempty"`
	// Task and Actor are the query's filters, for the words of an empty
	// open list: no task open is not no task of this actor's open.
	Task  string `json:"-"`
	Actor string `json:"-"`
}

// Handover derives the handover of every task (or the one named).
func (e *Session) Handover(ctx context.Context, q HandoverQuery) (*HandoverReport, error) {
	out := &HandoverReport{Since: q.Since.UTC().Format(time.RFC3339), Open: []record.Handover{}, Settled: []record.Handover{}, Circuits: []AdvisorRow{},
		Task: q.Task, Actor: q.Actor}
	if q.Task == "" {
		if err := e.handoverAll(ctx, q, out); err != nil {
			return nil, err
		}
	} else if err := e.handoverOne(ctx, q, out); err != nil {
		return nil, err
	}
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

// handoverAll fills out with every task's handover, from the rows kept
// by head (handoverRows): only the tasks that moved since the last read
// are derived, and only the tasks shown are read whole.
func (e *Session) handoverAll(ctx context.Context, q HandoverQuery, out *HandoverReport) error {
	rows, err := e.handoverRows(ctx, func(finished bool, settled string, actors []string) bool {
		if q.Actor != "" && !anyActor(actors, q.Actor) {
			return false
		}
		return !finished || (settled != "" && !settledBefore(settled, q.Since))
	})
	if err != nil {
		return err
	}
	out.Signatures = map[string]*SignatureSummary{}
	// Every task may be open: the list is made at that size once, not
	// grown (a handover is a large value, each growth copies them all).
	out.Open = make([]record.Handover, 0, len(rows))
	var selected [][]string
	for i := range rows {
		r := &rows[i]
		if r.h.Finished {
			out.Settled = append(out.Settled, r.h)
			continue
		}
		out.Open = append(out.Open, r.h)
		selected = append(selected, r.selected)
		if r.sigs != nil {
			out.Signatures[r.h.Task] = r.sigs
		}
	}
	sort.SliceStable(out.Settled, func(i, j int) bool { return out.Settled[i].Settled > out.Settled[j].Settled })
	e.markHandoverSteps(ctx, out.Open, selected)
	return nil
}

// handoverOne fills out with the handover of the task q names.
func (e *Session) handoverOne(ctx context.Context, q HandoverQuery, out *HandoverReport) error {
	st, head, _, err := e.ShownState(ctx, q.Task)
	if err != nil {
		return err
	}
	h := st.Handover()
	switch {
	case q.Actor != "" && !anyActor(h.Actors, q.Actor):
	case !h.Finished:
		out.Open = append(out.Open, h)
	case h.Settled != "" && !settledBefore(h.Settled, q.Since):
		out.Settled = append(out.Settled, h)
	}
	e.markHandoverSteps(ctx, out.Open, [][]string{consultSelected(st, h.Next)})
	// Its own signatures (RecordSignatures, kept by its head), not every
	// task's summary, which reads every task ref.
	out.Signatures = map[string]*SignatureSummary{}
	if len(out.Open) > 0 {
		if s := e.TaskSignatures(ctx, q.Task, head); s != nil {
			out.Signatures[q.Task] = s
		}
	}
	return nil
}

// parseSince reads a date option, named flag, in the forms read without
// asking git: an RFC 3339 time, a date, or an age before now (36h, 7d,
// 2w). final says that its error is the answer, not a form git may read:
// an age in days or weeks longer than a time.Duration holds (about 292
// years), which wrapped around to a time in the future or in the recent
// past.
func parseSince(flag, s string, now time.Time) (t time.Time, final bool, err error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, false, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, false, nil
	}
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, err := strconv.ParseInt(strings.TrimSuffix(s, suffix), 10, 64); err == nil && strings.HasSuffix(s, suffix) && n >= 0 {
			if most := int64(math.MaxInt64 / unit); n > most {
				return time.Time{}, true, Usage("%s %q: an age of at most %d%s: give a date for one longer ago", flag, s, most, suffix)
			}
			return now.Add(-time.Duration(n) * unit), false, nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), false, nil
	}
	return time.Time{}, false, Usage("%s %q: give a date (2026-01-31), an RFC 3339 time, or an age (36h, 7d, 2w)", flag, s)
}

// ParseWhen reads a date option (--since, --until) of log, tasks and
// handover: the forms parseSince reads, else any form git's own date
// parser reads ("yesterday", "2 weeks ago", "last monday", "noon"), asked
// of git itself (git rev-parse --since), so the option means what it
// means to git log. What git reads only as "now" (it reads any text so)
// is refused, unless it says now.
func (e *Session) ParseWhen(ctx context.Context, flag, s string, now time.Time) (time.Time, error) {
	if t, final, err := parseSince(flag, s, now); err == nil || final {
		return t, err
	}
	out, err := e.Repo.Git(ctx, "rev-parse", "--since="+s)
	age, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "--max-age=")
	secs, perr := strconv.ParseInt(age, 10, 64)
	if err != nil || !ok || perr != nil {
		return time.Time{}, Usage("%s %q: git does not read it as a date", flag, s)
	}
	t := time.Unix(secs, 0)
	if d := t.Sub(now); d > -2*time.Second && d < 2*time.Second && !strings.EqualFold(strings.TrimSpace(s), "now") {
		return time.Time{}, Usage("%s %q: not a date: give one as git log takes it (2026-01-31, yesterday, 2 weeks ago) or an age (36h, 7d)", flag, s)
	}
	return t, nil
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

// Format is how a report (handover, context) is rendered.
type Format int

const (
	// FormatMarkdown is markdown for pasting or posting: record text is
	// made inert (record.Markdown), so a record cannot inject HTML, links
	// or mentions where it is rendered.
	FormatMarkdown Format = iota
	// FormatText is for a terminal: the same layout, record text only
	// made printable (record.Printable), so an address reads
	// <ada@example.com>, not &lt;ada@example.com&gt;.
	FormatText
	// FormatTools is FormatMarkdown for the MCP tools: where the command
	// line's advice names a command, it names the tool that takes the
	// step (record.Advice.ToolMessage), or says the step is the person's.
	FormatTools
)

// ParseFormat reads a --format value.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "markdown":
		return FormatMarkdown, nil
	case "text":
		return FormatText, nil
	}
	return 0, Usage("--format %q: give text or markdown", s)
}

// prose renders record text in one Format.
type prose struct{ text, tools bool }

func proseFor(f Format) prose { return prose{text: f == FormatText, tools: f == FormatTools} }

// advice is a as the Format says it: to the MCP tools, or to a person.
func (p prose) advice(a record.Advice) string {
	if p.tools {
		return a.ToolMessage()
	}
	return a.String()
}

// step is a next command (record.Status.Next, a person's option's Then)
// as code, or, to the MCP tools, the tools that take it.
func (p prose) step(cmd string) string {
	if !p.tools {
		return code(cmd)
	}
	var tools []string
	for _, verb := range record.NextVerbs(cmd) {
		tools = append(tools, "the "+verb+" tool")
	}
	return strings.Join(tools, ", or ")
}

// md is record text made inert for markdown, or printable for a terminal.
func (p prose) md(s string) string {
	if p.text {
		return record.Printable(strings.Join(strings.Fields(s), " "))
	}
	return record.Markdown(s)
}

// quote is record text of many lines (a question, a rationale) as a
// paragraph of its own ending in a newline: for markdown a block quote
// (record.MarkdownQuote), whose lines cannot pose as the document's own;
// for a terminal one printable line.
func (p prose) quote(s string) string {
	if p.text {
		return p.md(s) + "\n"
	}
	return record.MarkdownQuote(s)
}

// code is a value the tool made (an id, a command, a phase) shown as code;
// a backtick in it is dropped, never able to close the span.
func code(s string) string { return record.MarkdownCode(s) }

// WriteHandover writes a handover to w as markdown or as text for a
// terminal, in one layout: the one rendering the command line and the MCP
// tool share. In markdown every text that comes from a record is escaped
// by record.Markdown. It writes as it renders, through one buffer: the
// handover of every task is megabytes at 20,000 tasks, never held whole.
func WriteHandover(w io.Writer, r *HandoverReport, f Format) error {
	p := proseFor(f)
	b := bufio.NewWriterSize(w, 64<<10)
	b.WriteString("# Handover\n\n")
	switch {
	case len(r.Open) == 0 && r.Task != "":
		fmt.Fprintf(b, "Task %s is not open.\n", code(r.Task))
	case len(r.Open) == 0 && r.Actor != "":
		fmt.Fprintf(b, "No open task has a record by %s.\n", p.md(r.Actor))
	case len(r.Open) == 0:
		b.WriteString("No task is open.\n")
	default:
		fmt.Fprintf(b, "## Open (%d)\n", len(r.Open))
		for i := range r.Open {
			p.handoverTask(b, &r.Open[i], r.Signatures[r.Open[i].Task])
		}
	}
	if len(r.Circuits) > 0 || r.CircuitsError != "" {
		b.WriteString("\n## Advisors not available now\n\n")
		for _, a := range r.Circuits {
			until := ""
			if a.Until != "" {
				until = " until " + p.stamp(a.Until)
			}
			fmt.Fprintf(b, "- %s: %s%s: %s\n", code(a.ID), p.md(a.Status), until, p.md(a.Reason))
		}
		if r.CircuitsError != "" {
			fmt.Fprintf(b, "- the advisors' declarations do not read: %s\n", p.md(r.CircuitsError))
		}
	}
	fmt.Fprintf(b, "\n## Settled since %s (%d)\n\n", p.stamp(r.Since), len(r.Settled))
	if len(r.Settled) == 0 {
		b.WriteString("None.\n")
	}
	for _, h := range r.Settled {
		phase := string(h.Phase)
		if c := h.Closed; c != nil {
			phase = "closed " + c.Outcome
			if c.By != "" {
				phase += " by task " + c.By
			}
		}
		fmt.Fprintf(b, "- %s %s: %s", code(h.Task), p.md(phase), p.md(h.Subject))
		if n := len(h.Standing); n > 0 {
			fmt.Fprintf(b, ": %s", p.md(h.Standing[n-1].Decision))
		}
		fmt.Fprintf(b, " (%s)\n", p.stamp(h.Settled))
	}
	return b.Flush()
}

func (p prose) handoverTask(b *bufio.Writer, h *record.Handover, sigs *SignatureSummary) {
	fmt.Fprintf(b, "\n### %s: %s\n\n", code(h.Task), p.md(h.Subject))
	if h.DoesNotVerify != nil {
		fmt.Fprintf(b, "- **%s**\n", p.md(p.advice(record.NotVerified(h.DoesNotVerify))))
	}
	fmt.Fprintf(b, "- phase: **%s**, updated %s, by %s\n", p.md(string(h.Phase)), p.stamp(h.Updated), p.list(h.Actors))
	if h.Next != "" {
		fmt.Fprintf(b, "- next: %s\n", p.step(h.Next))
	}
	if ps := h.PersonStep; ps != nil {
		fmt.Fprintf(b, "- next, a person decides: %s\n", p.md(p.advice(record.Advice{CLI: ps.Decide, Tools: ps.DecideTools})))
		for _, o := range ps.Options {
			fmt.Fprintf(b, "  - %s, then %s\n", p.md(p.advice(record.Advice{CLI: o.Choice, Tools: o.ChoiceTools})), p.step(o.Then))
		}
	}
	for _, d := range h.Disagreements {
		fmt.Fprintf(b, "- open disagreement %s by %s (%s): %s", code(d.ID), p.md(d.Actor), p.md(d.OpenedBy), p.md(d.Summary))
		b.WriteString(citesText(d.Cites) + "\n")
	}
	for _, item := range h.LocalReview {
		fmt.Fprintf(b, "- unanswered local review: %s\n", p.md(item))
	}
	if line := record.AnsweredLine(h.AnsweredBy); line != "" {
		fmt.Fprintf(b, "- local review %s\n", line)
	}
	if line := sigs.Text(); line != "" {
		fmt.Fprintf(b, "- signatures: %s\n", p.md(line))
	}
	// The reuse as it was assessed: a reuse that no longer holds is the
	// task's finding, shown above (its rows keep the reused heads and
	// are made again once one moved, 4498274); this line says what was
	// reused, not whether it stands now.
	if r := h.Reuse; r != nil {
		fmt.Fprintf(b, "- reused conclusion %s of %s", code(r.Conclusion), code(r.Task))
		if r.Actor != "" {
			fmt.Fprintf(b, " by %s", p.md(r.Actor))
		}
		b.WriteString(", " + record.ReuseUnchecked + "\n")
	}
	for _, c := range h.Consultations {
		fmt.Fprintf(b, "- %s %s", code(c.Advisor), p.md(c.Status))
		if c.Failures > 1 {
			fmt.Fprintf(b, " %d times, the last", c.Failures)
		}
		if c.Failure != "" {
			fmt.Fprintf(b, ": %s", p.md(c.Failure))
		}
		if c.Detail != "" {
			fmt.Fprintf(b, " (%s)", p.md(c.Detail))
		}
		fmt.Fprintf(b, " in %s\n", code(c.ID))
	}
	for _, a := range h.Missing {
		fmt.Fprintf(b, "- not asked yet: %s\n", code(a))
	}
	for _, s := range h.Standing {
		fmt.Fprintf(b, "- standing conclusion %s: %s\n", code(s.Conclusion), p.md(s.Decision))
	}
	if v := h.Validation; v != nil {
		fmt.Fprintf(b, "- last validation %s: %s (%s", code(v.ID), p.md(v.Result), p.md(v.Method))
		if v.Command != "" {
			fmt.Fprintf(b, " %s", code(v.Command))
		}
		fmt.Fprintf(b, ") by %s, %s\n", p.md(v.Actor), p.stamp(v.Created))
	}
	if a := h.Attempt; a != nil {
		fmt.Fprintf(b, "- last attempt %s: %s\n", code(a.ID), p.md(a.Outcome))
	}
}

func (p prose) list(xs []string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p.md(x)
	}
	return strings.Join(out, ", ")
}

// stamp shows a time as it is when it is one, else as inert text.
func (p prose) stamp(s string) string {
	if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return s
	}
	return p.md(s)
}

// citesText is "; cites A, B" of a disagreement's cited records, as code;
// "" when it cites none.
func citesText(cites []string) string {
	if len(cites) == 0 {
		return ""
	}
	return "; cites " + codes(cites)
}
