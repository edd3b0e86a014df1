package cli

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"
)

// roff writes a manual page in the man(7) macros. It knows the few
// requests git-reason(1) uses, so that no Markdown renderer is linked
// into the program for one page: every package linked is initialised by
// every command, --version included.
type roff struct{ b strings.Builder }

// req writes a request line: .SH NAME, .TP, .PP.
func (r *roff) req(name string, args ...string) {
	r.b.WriteString("." + name)
	for _, a := range args {
		r.b.WriteString(" " + a)
	}
	r.b.WriteByte('\n')
}

// line writes one line of text as it is, already in roff.
func (r *roff) line(s string) {
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		// A text line must not be read as a request.
		s = `\&` + s
	}
	r.b.WriteString(s + "\n")
}

// para writes text as filled paragraphs: a blank line in text starts a
// new paragraph, a single newline is a space.
func (r *roff) para(text string) {
	for i, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if i > 0 {
			r.req("PP")
		}
		r.line(inline(strings.Join(strings.Fields(p), " ")))
	}
}

// item writes a tagged paragraph: term (already in roff) on its own line,
// text indented under it.
func (r *roff) item(term, text string) {
	r.req("TP")
	r.line(term)
	r.para(text)
}

// example writes lines unfilled and indented, as typed.
func (r *roff) example(lines string) {
	r.req("sp")
	r.req("RS", "4")
	r.req("nf")
	for _, l := range strings.Split(strings.Trim(lines, "\n"), "\n") {
		r.line(esc(l))
	}
	r.req("fi")
	r.req("RE")
}

// esc escapes text for roff: a backslash is the escape character, a
// minus sign written as \- stays an ASCII hyphen-minus (so that an option
// copied from the page can be pasted into a shell), and a character
// beyond ASCII is named, by its roff name where the formatters fall back
// to ASCII for it, else by its code point, so the page reads the same
// whatever encoding the formatter expects.
func esc(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '\\':
			b.WriteString(`\e`)
		case c == '-':
			b.WriteString(`\-`)
		case roffName(c) != "":
			b.WriteString(roffName(c))
		case c > unicode.MaxASCII:
			fmt.Fprintf(&b, `\[u%04X]`, c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// roffName is the roff name of a character beyond ASCII the page's text
// holds, one the formatters can print in ASCII ("" for any other). A
// switch, not a map: a package-level map is built at start-up by every
// command.
func roffName(c rune) string {
	switch c {
	case '—':
		return `\(em`
	case '–':
		return `\(en`
	case '…':
		return "..."
	case '×':
		return `\(mu`
	case '‘', '’':
		return "'"
	case '“', '”':
		return `"`
	case '≤':
		return `<=`
	case '≥':
		return `>=`
	case '→':
		return `\(->`
	}
	return ""
}

func bold(s string) string   { return `\fB` + esc(s) + `\fP` }
func italic(s string) string { return `\fI` + esc(s) + `\fP` }

// inline escapes text and sets `code` spans in bold, as the settings
// table marks keys and commands for docs/CONFIGURATION.md.
func inline(s string) string {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		// An unpaired backquote is a character, not a span.
		return esc(s)
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString(bold(p))
		} else {
			b.WriteString(esc(p))
		}
	}
	return b.String()
}

// flagItem writes one option: its names, the value it takes and what it
// does, with its default when the default says something.
func (r *roff) flagItem(f cli.Flag) {
	if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
		return
	}
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return
	}
	placeholder, usage := unquote(df.GetUsage())
	var names []string
	for _, n := range df.Names() {
		if len(n) == 1 {
			names = append(names, bold("-"+n))
		} else {
			names = append(names, bold("--"+n))
		}
	}
	term := strings.Join(names, ", ")
	if df.TakesValue() {
		if placeholder == "" {
			placeholder = "VALUE"
		}
		term += " " + italic(placeholder)
	}
	switch d := strings.Trim(df.GetDefaultText(), `"`); d {
	case "", "0", "0s", "false", "[]":
	default:
		usage += " (default: " + d + ")"
	}
	if env := df.GetEnvVars(); len(env) > 0 {
		usage += " (environment: " + strings.Join(env, ", ") + ")"
	}
	r.item(term, usage)
}

// unquote takes the first `NAME` out of a flag's usage: NAME is what the
// flag's value is called, and the usage reads on without the quotes.
func unquote(usage string) (name, rest string) {
	before, after, ok := strings.Cut(usage, "`")
	if !ok {
		return "", usage
	}
	name, after, ok = strings.Cut(after, "`")
	if !ok {
		return "", usage
	}
	return name, before + name + after
}
