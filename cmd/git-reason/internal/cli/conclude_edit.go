package cli

import (
	"context"
	"errors"
	"fmt"
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
func (o *concludeOptions) edit(c *cli.Context) error {
	ctx := c.Context
	sess, err := o.Open()
	if err != nil {
		return err
	}
	st, _, err := sess.State(ctx, o.Task)
	if err != nil {
		return err
	}
	a := st.LatestAssessment()
	if o.Assessment != "" {
		if a, err = st.Resolve(o.Assessment); err != nil {
			return err
		}
	}
	if a == nil {
		return ops.Usage("task %s has no assessment yet", o.Task)
	}
	path := filepath.Join(sess.Repo.GitDir, editFile)
	if err := os.WriteFile(path, []byte(o.template(st, a)), 0o600); err != nil {
		return fmt.Errorf("write the conclusion template: %w", err)
	}
	if err := runEditor(ctx, c, sess.Repo.WorkTree, sess.Repo.GitDir, path); err != nil {
		return err
	}
	edited, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read the edited conclusion: %w", err)
	}
	return o.readEdited(string(edited))
}

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
		return ops.Usage("aborting the conclusion: the decision was left empty, so nothing was written")
	}
	return nil
}

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
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.App.Reader, c.App.ErrWriter, c.App.ErrWriter
	if f := terminal(c.App.Writer); f != nil {
		cmd.Stdout = f
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the editor %q failed (%v): nothing was written; the text is in %s", editor, err, path)
	}
	return nil
}
