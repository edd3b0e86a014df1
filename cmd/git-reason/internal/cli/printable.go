package cli

import (
	"errors"
	"io"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"git-reason/record"
)

// printableWriter passes every byte of a command's text output through
// record.PrintableText, the one filter: whatever a record, a ref name or a
// tree entry holds, no control character, escape sequence or bidirectional
// override reaches the terminal. --json output is not filtered (the JSON
// encoder escapes control characters, and JSON must stay exact).
//
// Standard error is filtered always (newApp): its warnings and notes name
// fetched records, a repository's .reason/ files and git's own errors. What
// must reach the terminal as it is takes the file beneath (unfiltered): the
// progress meter's carriage return, the editor; git's progress passes the
// filter with its carriage returns kept (gitProgressText).
type printableWriter struct {
	mu      sync.Mutex // a pull's workers warn on goroutines of their own
	w       io.Writer
	pending []byte // an incomplete UTF-8 sequence from the last write
	sgr     bool   // colour is on: git reason's own SGR sequences pass
}

func (p *printableWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	data := b
	if len(p.pending) > 0 {
		data = append(p.pending, b...)
	}
	cut := len(data)
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				cut = i
			}
			break
		}
	}
	p.pending = append([]byte(nil), data[cut:]...)
	if !p.sgr && record.TextPrintable(data[:cut]) {
		// What passes unchanged is written as it came: a table of every
		// task is not copied three times on its way out.
		if _, err := p.w.Write(data[:cut]); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	text := string(data[:cut])
	var out strings.Builder
	for text != "" {
		before, sgr, rest := text, "", ""
		if p.sgr {
			before, sgr, rest = cutSGR(text)
		}
		out.WriteString(record.PrintableText(before))
		out.WriteString(sgr)
		text = rest
	}
	if _, err := io.WriteString(p.w, out.String()); err != nil {
		return 0, err
	}
	return len(b), nil
}

// unfiltered is w without the printable filter and the output's error
// record: the writer a printableWriter or an outputWriter writes to, else
// w itself.
func unfiltered(w io.Writer) io.Writer {
	for {
		switch o := w.(type) {
		case *printableWriter:
			w = o.w
		case *outputWriter:
			w = o.w
		default:
			return w
		}
	}
}

// outputWriter is a command's standard output, keeping the first error a
// write to it met. The help, printed by urfave/cli, drops the error of
// its writes, and git reason -h >/dev/full exited 0 having written
// nothing, where git says "fatal: unable to write" and exits 128; what a
// verb printed and did not check failed as quietly. The command fails
// with it (failure) once it has nothing else to say.
type outputWriter struct {
	w   io.Writer
	mu  sync.Mutex
	err error
}

func (o *outputWriter) Write(b []byte) (int, error) {
	n, err := o.w.Write(b)
	if err != nil {
		o.mu.Lock()
		if o.err == nil {
			o.err = err
		}
		o.mu.Unlock()
	}
	return n, err
}

// failure is the error of the first write that failed, an I/O failure
// (exit 1), or nil: a closed pipe ends the command quietly with the
// status of a process it killed (141), as a pager quit does (pagerPipe)
// and as git's commands do, SIGPIPE ignored or not.
func (o *outputWriter) failure() error {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if errors.Is(o.err, syscall.EPIPE) {
		return quietExit(141)
	}
	return o.err
}

// gitProgressText passes git's progress to the terminal through the
// printable filter, its carriage returns kept: git writes it whole lines
// at a time (git.Cmd.Progress), and with it whatever the remote's side
// wrote to git's standard error (its upload-pack, a server's messages),
// which reached the terminal raw.
type gitProgressText struct{ w io.Writer }

func (g gitProgressText) Write(b []byte) (int, error) {
	parts := strings.Split(string(b), "\r")
	for i, part := range parts {
		parts[i] = record.PrintableText(part)
	}
	if _, err := io.WriteString(g.w, strings.Join(parts, "\r")); err != nil {
		return 0, err
	}
	return len(b), nil
}

// filterText is every command's Before: text output goes through the
// printable filter, --json output does not.
func filterText(next cli.BeforeFunc) cli.BeforeFunc {
	return func(c *cli.Context) error {
		if _, done := c.App.Writer.(*printableWriter); !done && !c.Bool("json") {
			c.App.Writer = &printableWriter{w: c.App.Writer}
		}
		if next != nil {
			return next(c)
		}
		return nil
	}
}

// filterCommands installs filterText on cmd and its subcommands.
func filterCommands(cmd *cli.Command) {
	cmd.Before = filterText(cmd.Before)
	for _, sub := range cmd.Subcommands {
		filterCommands(sub)
	}
}
