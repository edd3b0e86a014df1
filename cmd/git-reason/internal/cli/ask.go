package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"git-reason/cmd/git-reason/internal/ops"
)

// On a terminal a write verb asks for what its command line left out, as
// git and gh do, instead of failing: assess prompts for its required
// fields, conclude opens the editor (conclude_edit.go). Without a
// terminal a missing flag stays the one-line usage error (exit 2) that a
// script expects.

// onTerminal reports whether a person is at the command: its standard
// input and standard error are both terminals.
func onTerminal(c *cli.Context) bool {
	return terminal(c.App.Reader) != nil && terminal(c.App.ErrWriter) != nil
}

// terminal is s when it is a file on a terminal, else nil; a writer
// through the printable filter is the file beneath it.
func terminal(s any) *os.File {
	if w, ok := s.(io.Writer); ok {
		s = unfiltered(w)
	}
	if f, ok := s.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return f
	}
	return nil
}

// prompter asks one question a line on a terminal.
type prompter struct {
	in  *bufio.Reader
	out io.Writer
}

func newPrompter(c *cli.Context) *prompter {
	return &prompter{in: bufio.NewReader(untilInterrupt(c.Context, c.App.Reader)), out: c.App.ErrWriter}
}

// untilInterrupt is r, whose reads end with ctx's error as soon as ctx is
// done. The program catches Ctrl-C so that a command can stop cleanly,
// which would leave a read of a person's input (a prompt, --file -)
// waiting for a line or for Ctrl-D: at git's own prompts Ctrl-C stops
// the command. A read cut short stays with its goroutine, which reads
// into a buffer of its own, until the program exits.
func untilInterrupt(ctx context.Context, r io.Reader) io.Reader {
	if ctx == nil || ctx.Done() == nil {
		return r
	}
	return &interruptible{ctx: ctx, r: r}
}

type interruptible struct {
	ctx context.Context
	r   io.Reader
}

func (i *interruptible) Read(p []byte) (int, error) {
	if err := i.ctx.Err(); err != nil {
		return 0, err
	}
	type result struct {
		buf []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		buf := make([]byte, len(p))
		n, err := i.r.Read(buf)
		done <- result{buf[:n], err}
	}()
	select {
	case res := <-done:
		return copy(p, res.buf), res.err
	case <-i.ctx.Done():
		return 0, i.ctx.Err()
	}
}

// ask prints the question and returns the answer, asking again after an
// empty answer or one that is not among choices (when there are any). The
// end of input (Ctrl-D) is a usage error naming flag: nothing is written.
func (p *prompter) ask(flag, question string, choices []string) (string, error) {
	if len(choices) > 0 {
		question += " (" + strings.Join(choices, ", ") + ")"
	}
	for {
		fmt.Fprintf(p.out, "? %s: ", question)
		line, err := p.in.ReadString('\n')
		answer := strings.TrimSpace(line)
		switch {
		case errors.Is(err, context.Canceled):
			fmt.Fprintln(p.out)
			return "", err
		case err != nil && answer == "":
			fmt.Fprintln(p.out)
			return "", ops.Usage("no answer for --%s: nothing was written", flag)
		case answer == "":
			continue
		case len(choices) > 0 && !slices.Contains(choices, answer):
			fmt.Fprintf(p.out, "  %q is not one of %s\n", answer, strings.Join(choices, ", "))
			continue
		}
		return answer, nil
	}
}

// ask fills the assessment's required fields the command line
// left out, and one piece of evidence when the materiality needs some.
func (o *assessOptions) ask(c *cli.Context) error {
	p := newPrompter(c)
	fields := []struct {
		flag, question string
		dest           *string
		choices        []string
	}{
		{"subject", "Subject (what the decision is about)", &o.Subject, nil},
		{"question", "Question (what is uncertain)", &o.Question, nil},
		{"materiality", "Materiality", &o.Materiality, schemaEnum("assessment", "materiality")},
		{"reversibility", "Reversibility", &o.Reversibility, schemaEnum("assessment", "reversibility")},
	}
	for _, f := range fields {
		if isSet(c, f.flag) {
			continue
		}
		v, err := p.ask(f.flag, f.question, f.choices)
		if err != nil {
			return err
		}
		*f.dest = v
	}
	if len(o.Evidence) == 0 && (o.Materiality == "material" || o.Materiality == "critical") {
		ev, err := p.ask("evidence", "Evidence, as KIND:REF:SUMMARY (KIND one of file, command, commit, url, note)", nil)
		if err != nil {
			return err
		}
		o.Evidence = []string{ev}
	}
	return nil
}
