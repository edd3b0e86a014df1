package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/gitstore/git"
	"git-reason/record"
)

// editFile is where conclude writes its template for the editor, in the
// repository's git directory beside git's own COMMIT_EDITMSG; what was
// written stays there after a refusal, as git's does.
const editFile = "REASON_EDITMSG"

// edit fills the conclusion from the editor git would use (git var
// GIT_EDITOR: GIT_EDITOR, core.editor, VISUAL, EDITOR): a template names
// the assessment's question, leaves the decision and rationale to write,
// and lists each completed consultation to weigh and each local-review
// item to answer, prefilled from the command line. Lines starting with
// '#' are dropped, as git commit drops them; a file left with no decision
// aborts with nothing written (a usage error, exit 2, as a missing
// --decision is).
//
// What was written is kept when the conclusion is refused (edited.keep),
// and the next edit of the same assessment starts from it rather than
// from the template, unless flags were given to prefill a new one.
func (o *concludeOptions) edit(c *cli.Context) (*edited, error) {
	ctx := c.Context
	sess, err := o.Open()
	if err != nil {
		return nil, err
	}
	st, a, err := o.assessment(ctx, sess)
	if err != nil {
		return nil, err
	}
	d := &edited{task: o.Task, assessment: a.ID,
		kept: filepath.Join(sess.Repo.CommonDir, "reason", "conclude", url.PathEscape(o.Task)+".EDITMSG")}
	text := o.template(st, a)
	if prior, err := os.ReadFile(d.kept); err == nil && strings.HasPrefix(string(prior), d.mark()) &&
		o.Rationale == "" && len(o.Weigh) == 0 && len(o.LocalReview) == 0 {
		text = string(prior)
	}
	path := filepath.Join(sess.Repo.GitDir, editFile)
	d.editmsg = path
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return nil, fmt.Errorf("write the conclusion template: %w", err)
	}
	// In a shared repository the group's next conclude rewrites it.
	_ = git.AdjustCreated(path)
	if err := runEditor(ctx, c, sess.Repo.WorkTree, sess.Repo.GitDir, path); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the edited conclusion: %w", err)
	}
	d.text = string(data)
	switch err := o.readEdited(d.text); {
	case errors.Is(err, errAborted):
		d.discard()
		return nil, err
	case err != nil:
		return nil, d.keep(err)
	}
	return d, nil
}

// edited is a conclusion written in the editor, kept in the common git
// directory (reason/conclude/TASK.EDITMSG) when it is refused, as git
// keeps a failed commit's message, so that nothing typed is lost.
type edited struct {
	task, assessment string
	kept             string // where a refused conclusion's text is kept
	editmsg          string // the file the editor edited
	text             string // what the editor left
}

// mark is the first line of a kept text: the next edit of the same
// assessment starts from it.
func (d *edited) mark() string {
	return "# Kept after git reason refused this conclusion of assessment " + d.assessment + ":\n"
}

// settle is err, the writer's answer to the edited conclusion: the kept
// text goes once it is admitted, and is kept when it is refused.
func (d *edited) settle(err error) error {
	if err == nil {
		d.discard()
		return nil
	}
	return d.keep(err)
}

func (d *edited) discard() { _ = os.Remove(d.kept) }

// keep writes what was typed, under a header saying why it was refused,
// and returns err saying where it is and how to take it up again. An
// unfilled part is named by the template's line to fill, not the flag.
func (d *edited) keep(err error) error {
	lines := strings.SplitAfter(d.text, "\n")
	for len(lines) > 0 && strings.HasPrefix(lines[0], "#") {
		lines = lines[1:] // the header of an earlier refusal
	}
	// What went wrong, in the editor's terms: an unfilled part is named by
	// the template's line, not the flag.
	first, rest, _ := strings.Cut(err.Error(), "\n")
	if ue, ok := errors.AsType[*record.UnfilledError](err); ok {
		fill := make([]string, len(ue.Keys))
		for i, k := range ue.Keys {
			fill[i] = fmt.Sprintf("'%s %s='", ue.Field, k)
		}
		which := "the line"
		if len(fill) > 1 {
			which += "s"
		}
		first = fmt.Sprintf("%s: fill %s %s", ue.Rule, which, strings.Join(fill, ", "))
	}
	header := d.mark() + "#   " + record.Printable(first) + "\n" +
		"# Fix it and save to try again; leave the decision empty to discard it.\n"
	again := fmt.Sprintf("what you wrote is kept in %s, which 'git reason conclude %s' opens again", d.kept, d.task)
	werr := git.MkdirAll(filepath.Dir(d.kept), 0o700)
	if werr == nil {
		werr = git.WriteFile(d.kept, []byte(header+strings.Join(lines, "")), 0o600, git.Wait, false)
	}
	if werr != nil {
		// Still in the editor's file, until the next edit writes it.
		again = fmt.Sprintf("what you wrote is in %s until the next edit (it could not be kept: %v)", d.editmsg, werr)
	}
	if rest != "" {
		rest = "\n" + rest
	}
	return &keptError{msg: first + "; " + again + rest, err: err}
}

// keptError is a refusal of an edited conclusion, told with where its
// text was kept; it matches what err matches (its exit status).
type keptError struct {
	msg string
	err error
}

func (e *keptError) Error() string { return e.msg }
func (e *keptError) Unwrap() error { return e.err }

// template is the file the editor opens.
func (o *concludeOptions) template(st *record.State, a *record.Entry) string {
	var b strings.Builder
	ab := a.Body.(*record.Assessment)
	fmt.Fprintf(&b, "decision: \nrationale: %s\n", o.Rationale)
	fmt.Fprintf(&b, "\n# Conclude task %s: %s (%s, %s)\n# Question: %s\n#\n", o.Task, line(ab.Subject), ab.Materiality, ab.Reversibility, line(ab.Question))
	b.WriteString("# Write the decision after \"decision:\" and why after \"rationale:\" (it may\n" +
		"# go on over more lines). Lines starting with '#' are ignored; with no\n" +
		"# decision the conclusion is aborted and nothing is written.\n")
	given := map[string]string{}
	for _, w := range o.Weigh {
		id, rest, _ := strings.Cut(w, "=")
		given[strings.ToUpper(id)] = rest
	}
	if done := st.Completed(a.ID); len(done) > 0 {
		b.WriteString("#\n# Weigh each answer: after its id, adopted, partially_adopted or rejected,\n# then ':' and the reason.\n")
		for _, e := range done {
			cb := e.Body.(*record.Consultation)
			stance, summary := "", ""
			if cb.Conclusion != nil {
				stance, summary = cb.Conclusion.Stance, cb.Conclusion.Summary
			}
			fmt.Fprintf(&b, "#   %s (%s): %s\nweigh %s=%s\n", cb.Advisor, stance, line(summary), e.ID, given[e.ID]+given[record.ShortID(e.ID)])
		}
	}
	if p := st.LatestPlan(a.ID); p != nil {
		if pd := p.Derived.(*record.PlanDerived); len(pd.Selected) == 0 && len(pd.LocalReview) > 0 {
			answers := map[string]string{}
			for _, lr := range o.LocalReview {
				item, answer, _ := strings.Cut(lr, "=")
				answers[item] = answer
			}
			b.WriteString("#\n# No advisor reviewed this plan: answer each item of its local review.\n")
			for i, item := range pd.LocalReview {
				n := strconv.Itoa(i + 1)
				fmt.Fprintf(&b, "#   %s. %s\nlocal-review %s=%s\n", n, line(item), n, answers[n]+answers[item])
			}
		}
	}
	return b.String()
}

// line is record text on one printable line of the template.
func line(s string) string { return strings.Join(strings.Fields(record.Printable(s)), " ") }

// readEdited reads the edited file into the options: "decision:",
// "rationale:" (and the lines after it), "weigh ID=TREATMENT:REASON" and
// "local-review N=ANSWER", as the flags take them; a weigh or local-review
// line left empty after '=' says nothing.
func (o *concludeOptions) readEdited(text string) error {
	o.Decision, o.Rationale, o.Weigh, o.LocalReview = "", "", nil, nil
	var rationale []string
	inRationale := false
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		key, rest, _ := strings.Cut(strings.TrimSpace(l), " ")
		value := strings.TrimSpace(rest)
		switch {
		case key == "decision:":
			o.Decision, inRationale = value, false
		case key == "rationale:":
			rationale, inRationale = []string{value}, true
		case key == "weigh" || key == "local-review":
			inRationale = false
			id, answer, ok := strings.Cut(value, "=")
			if !ok {
				return ops.Usage("%s line %d: write %s %s=ANSWER: nothing was written", editFile, i+1, key, map[string]string{"weigh": "ID", "local-review": "N"}[key])
			}
			if answer = strings.TrimSpace(answer); answer == "" {
				continue
			}
			if key == "weigh" {
				o.Weigh = append(o.Weigh, id+"="+answer)
			} else {
				o.LocalReview = append(o.LocalReview, id+"="+answer)
			}
		case inRationale:
			rationale = append(rationale, l)
		case strings.TrimSpace(l) != "":
			return ops.Usage("%s line %d: %q is not a decision:, rationale:, weigh or local-review line: nothing was written", editFile, i+1, record.Printable(l))
		}
	}
	o.Rationale = strings.TrimSpace(strings.Join(rationale, "\n"))
	if o.Decision == "" {
		return errAborted
	}
	return nil
}

// errAborted is an edited conclusion left with no decision.
var errAborted = ops.Usage("aborting the conclusion: the decision was left empty, so nothing was written")

// runEditor runs the editor git would use on path, on the terminal, as
// git's launch_editor does: through the shell, with the file as its
// argument. An editor that fails writes nothing.
func runEditor(ctx context.Context, c *cli.Context, workTree, gitDir, path string) error {
	dir := workTree
	if dir == "" {
		dir = gitDir
	}
	out, err := git.Cmd{Dir: dir, Args: []string{"var", "GIT_EDITOR"}}.Run(ctx)
	editor := strings.TrimSpace(string(out))
	if err != nil || editor == "" {
		why := "git var GIT_EDITOR names none"
		if ge, ok := errors.AsType[*git.Error](err); ok {
			why = git.LastLine(ge.Stderr, why)
		}
		return ops.Usage("no editor to write the conclusion in (%s): set GIT_EDITOR or core.editor, or give --decision", why)
	}
	if editor == ":" {
		return nil // git's "no editor": the template as it is
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", editor+` "$@"`, editor, path)
	// The editor has the terminal itself, not the printable filter.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.App.Reader, unfiltered(c.App.ErrWriter), unfiltered(c.App.ErrWriter)
	if f := terminal(c.App.Writer); f != nil {
		cmd.Stdout = f
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the editor %q failed (%v): nothing was written; the text is in %s", editor, err, path)
	}
	return nil
}
