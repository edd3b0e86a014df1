package ops

import (
	"fmt"
	"strings"

	"git-reason/record"
)

// DefaultCommentLimit is the size a comment body is held to by default:
// a hosting platform refuses a comment over 65,536 characters, and bytes
// are never fewer than characters.
const DefaultCommentLimit = 60000

// MinCommentLimit is the smallest limit a comment body can be held to:
// its heading, the note on what was cut and its footer.
const MinCommentLimit = 2000

// namesInNote bounds the task names the note on what was cut lists.
const namesInNote = 20

// ContextComment renders a context as a pull request comment body a
// hosting platform renders: the heading and counts of RenderContext,
// then each task in a collapsible <details> block (its summary line is raw
// HTML, made inert by record.HTMLText; its body is RenderContext's, with
// the record graph in a ```mermaid block and record ids as plain code
// text), then the commits linked to no task and unknown trailers, each
// collapsed too. The body holds to limit bytes: a task that does not fit
// keeps its summary line and decision, then tasks are left out, last first;
// a note says what was cut and which command shows everything.
func ContextComment(r *ContextReport, limit int) (string, error) {
	if limit < MinCommentLimit {
		return "", Usage("--max-size %d: give at least %d bytes", limit, MinCommentLimit)
	}
	p := prose{}
	var head strings.Builder
	fmt.Fprintf(&head, "## Reasoning behind %s\n\n", code(r.Range))
	p.contextCounts(&head, r)
	foot := "\n<sub>Posted from <code>git reason context --format github</code>. Record ids are plain text: <code>git reason show ID</code> shows one.</sub>\n"

	blocks := make([]commentBlock, 0, len(r.Tasks)+2)
	for i := range r.Tasks {
		blocks = append(blocks, p.taskBlock(&r.Tasks[i]))
	}
	if loose := r.looseCommits(); len(loose) > 0 && len(r.Tasks) > 0 {
		var b strings.Builder
		for _, c := range loose {
			fmt.Fprintf(&b, "- %s %s\n", p.commit(c.Commit), p.md(c.Subject))
		}
		blocks = append(blocks, commentBlock{name: "the commits linked to no task",
			full: details(fmt.Sprintf("Commits linked to no task (%d)", len(loose)), b.String())})
	}
	if len(r.Unknown) > 0 {
		var b strings.Builder
		for _, u := range r.Unknown {
			fmt.Fprintf(&b, "- %s names %s: %s\n", p.commit(u.Commit), code(u.Task), p.md(u.Reason))
		}
		blocks = append(blocks, commentBlock{name: "the trailers naming no task",
			full: details(fmt.Sprintf("Trailers naming no task here (%d)", len(r.Unknown)), b.String())})
	}

	// Everything in full when it fits; else, from the last block back,
	// each task keeps only its summary line and decision (other blocks go),
	// then tasks go, until the body and its note fit.
	note := ""
	size := func() int {
		n := head.Len() + len(foot) + len(note)
		for _, b := range blocks {
			n += len(b.text())
		}
		return n
	}
	for level := cutShort; level <= cutOut; level++ {
		for i := len(blocks) - 1; i >= 0 && size() > limit; i-- {
			if blocks[i].level >= level {
				continue
			}
			blocks[i].level = level
			if blocks[i].short == "" {
				blocks[i].level = cutOut
			}
			note = cutNote(blocks, r.argument(), limit)
		}
	}
	var out strings.Builder
	out.Grow(size())
	out.WriteString(head.String())
	for _, b := range blocks {
		out.WriteString(b.text())
	}
	out.WriteString(note)
	out.WriteString(foot)
	return out.String(), nil
}

// How much of a block a comment keeps.
const (
	cutNone  = iota // all of it
	cutShort        // its summary line and decision
	cutOut          // nothing
)

// commentBlock is one collapsible part of a comment, in full and shortened.
type commentBlock struct {
	name        string // how the note on cuts names it, as markdown
	full, short string
	level       int
}

func (b commentBlock) text() string {
	switch b.level {
	case cutNone:
		return b.full
	case cutShort:
		return b.short
	}
	return ""
}

// taskBlock is a task's <details> block, and the short one kept when the
// whole does not fit.
func (p prose) taskBlock(t *ContextTask) commentBlock {
	summary := "<strong>" + record.HTMLText(t.Task) + "</strong>: " + record.HTMLText(t.Subject) +
		" · " + record.HTMLText(string(t.Phase)) + fmt.Sprintf(" · review count %d", t.ReviewCount)
	if t.Closed != nil {
		summary += " · closed " + record.HTMLText(t.Closed.Outcome)
	}
	var body strings.Builder
	p.contextTaskBody(&body, t)
	short := ""
	if t.Decision != "" {
		short = fmt.Sprintf("**Decision:** %s\n\n", p.md(t.Decision))
	}
	short += fmt.Sprintf("Cut to fit the comment: %s shows this task's state.\n", code("git reason status "+t.Task))
	return commentBlock{name: code(t.Task), full: details(summary, body.String()), short: details(summary, short)}
}

// details is a collapsible block: a blank line after the summary line lets
// the body be read as markdown, and one before the closing tag ends it.
func details(summary, body string) string {
	return "\n<details>\n<summary>" + summary + "</summary>\n\n" + strings.TrimSpace(body) + "\n\n</details>\n"
}

// cutNote says which blocks were shortened or left out, and how to see
// them.
func cutNote(blocks []commentBlock, rg string, limit int) string {
	var short, out []string
	for _, b := range blocks {
		switch b.level {
		case cutShort:
			short = append(short, b.name)
		case cutOut:
			out = append(out, b.name)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n> **Cut to fit %d bytes.**", limit)
	if len(short) > 0 {
		fmt.Fprintf(&b, " Shown without their reasoning: %s.", names(short))
	}
	if len(out) > 0 {
		fmt.Fprintf(&b, " Left out: %s.", names(out))
	}
	fmt.Fprintf(&b, " %s shows everything.\n", code(contextCommand(rg)))
	return b.String()
}

// contextCommand is the command that shows the context of range rg ("" for
// the default range).
func contextCommand(rg string) string {
	show := "git reason context"
	if rg != "" {
		// The range names the upstream or default branch: a stranger's
		// branch may be named x$(cmd).
		show += " " + record.ShellQuote(rg)
	}
	return show
}

// names lists the first namesInNote names, and how many more.
func names(xs []string) string {
	s := strings.Join(xs[:min(len(xs), namesInNote)], ", ")
	if n := len(xs) - namesInNote; n > 0 {
		s += fmt.Sprintf(" and %d more", n)
	}
	return s
}
