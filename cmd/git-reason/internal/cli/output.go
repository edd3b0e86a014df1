package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/itchyny/gojq"
	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
	"git-reason/schemas"
)

// base is what every verb's options start with: where it reads and
// writes, how it opens the repository, and whether it prints JSON.
type base struct {
	In   io.Reader
	Out  io.Writer // data
	Err  io.Writer // status and progress
	Open func() (*ops.Session, error)
	JSON bool // --json: data goes through exportJSON
	// Output is the schema document the verb publishes its --json output
	// as (schemas.Outputs), which render holds it to; "" for a verb that
	// writes a record (writes) or prints nothing of its own.
	Output string
	// writes is the verb when it writes a record (writesKind): its
	// output is held to record.WriteOutput's document.
	writes string
	JQ     string   // --jq: a jq expression the JSON goes through (implies --json)
	Net    *Servers // the network verbs' servers: nil but in NetProgram
	// session is the session Open opened, nil before it did (or when it
	// failed).
	session func() *ops.Session
	// Meanwhile, when set, is work Open starts once git's processes
	// are, to run while they do (the schemas a write compiles).
	Meanwhile func()
	// cmdline is the command line bind read, for its global flags
	// (--color).
	cmdline *cli.Context
}

// bind fills the dependencies from the running command.
func (b *base) bind(c *cli.Context) {
	b.In, b.Out, b.Err = c.App.Reader, c.App.Writer, c.App.ErrWriter
	b.cmdline = c
	c.App.Metadata["colour"] = colourChosen(c) // for a refusal's line (refusalColour)
	b.Net = servers(c)
	// One session per command: the branch's task and the verb's work
	// read the same repository once.
	var sess *ops.Session
	var err error
	b.Open = func() (*ops.Session, error) {
		if sess == nil && err == nil {
			// Values the command line gave that the verb would refuse
			// whatever the repository holds are refused first: opening
			// runs the catch-up, which integrates what a fetch brought
			// and writes under .git/reason.
			if err = flagValues(c); err == nil {
				sess, err = openSession(c, false, b.Meanwhile)
			}
		}
		return sess, err
	}
	b.session = func() *ops.Session { return sess }
	if isSet(c, "jq") {
		b.JQ, b.JSON = c.String("jq"), true
	}
	b.Output = schemas.Outputs[verbPath(c)]
	if _, ok := writtenKind(verbPath(c)); ok {
		b.writes = verbPath(c)
	}
}

// verbPath is the verb c runs as typed after "git reason" ("hooks
// install"): schemas.Outputs' key.
func verbPath(c *cli.Context) string {
	var names []string
	for _, l := range c.Lineage() {
		// The program's own command (named as the program) and the
		// context above it are not verbs.
		if l.Command != nil && l.Command.Name != "" && l.Command.Name != c.App.Name {
			names = append(names, l.Command.Name)
		}
	}
	slices.Reverse(names)
	return strings.Join(names, " ")
}

// jqFlag is added by newApp to every verb that has --json.
// An expression that does not parse is refused as the flags are read,
// before the verb opens the repository (and catches up on a fetch).
func jqFlag() cli.Flag {
	return &cli.StringFlag{Name: "jq", Usage: "filter the JSON output with a jq `EXPRESSION` (implies --json); strings print raw",
		Action: func(_ *cli.Context, expr string) error {
			if _, err := gojq.Parse(expr); err != nil {
				return jqParseError(expr, err)
			}
			return nil
		}}
}

// jsonFlag wires --json into a verb's options.
func (b *base) jsonFlag() cli.Flag {
	return &cli.BoolFlag{Name: "json", Usage: "print JSON", Destination: &b.JSON}
}

// render prints v: as JSON with --json, held to the schema the verb
// publishes (checkOutput) before a byte of it is printed, else through
// text.
func (b *base) render(v any, text func(w io.Writer) error) error {
	if b.JSON {
		var buf bytes.Buffer
		if err := exportJSON(&buf, v); err != nil {
			return err
		}
		if err := b.checkOutput(buf.Bytes()); err != nil {
			return err
		}
		if b.JQ != "" {
			return exportJQ(b.Out, buf.Bytes(), b.JQ)
		}
		_, err := b.Out.Write(buf.Bytes())
		return err
	}
	// Buffered: a table of every task is tens of thousands of small
	// writes, each a system call through the printable filter otherwise.
	w := &lineBuffer{w: b.Out}
	err := text(w)
	if ferr := w.flush(len(w.buf)); err == nil {
		err = ferr
	}
	return err
}

// lineBuffer passes what is written on in whole lines, some 64 KiB at a
// time, so that the printable filter after it never sees one of git
// reason's own colour sequences cut in two.
type lineBuffer struct {
	w   io.Writer
	buf []byte
}

func (l *lineBuffer) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	if len(l.buf) >= 64<<10 {
		if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
			if err := l.flush(i + 1); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}

// flush writes the first n bytes held.
func (l *lineBuffer) flush(n int) error {
	if n == 0 {
		return nil
	}
	_, err := l.w.Write(l.buf[:n])
	l.buf = l.buf[:copy(l.buf, l.buf[n:])]
	return err
}

// exportJSON is the one JSON exporter every command's --json goes through:
// indented, HTML characters left as they are, and every list a list: an
// empty one prints [], never null.
func exportJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if v != nil {
		v = noNullLists(reflect.ValueOf(v)).Interface()
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(inertJSON(plainHTML(buf.Bytes())))
	return err
}

// inertJSON is the JSON text b with every character the printable filter
// escapes written as a JSON escape (\u009b, \u202e; a pair of surrogates
// past U+FFFF) and every byte that is no UTF-8 as \ufffd, what a JSON
// reader takes it for. The encoder escapes C0 controls itself, but not
// DEL, C1 controls (U+009B is CSI to a terminal that reads them) or
// bidirectional overrides, and a record's body and derived fields are
// printed as stored: --json on a terminal wrote them raw (a commit
// subject of a pull request in context --json, a fetched record in
// show --json). Outside its strings JSON text is ASCII, so every such
// character is in a string, and the document reads back the same.
func inertJSON(b []byte) []byte {
	i := bytes.IndexFunc(b, func(r rune) bool { return r >= 0x7f })
	if i < 0 {
		return b
	}
	out := append(make([]byte, 0, len(b)+64), b[:i]...)
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			out = append(out, `\ufffd`...)
		case r >= 0x7f && record.Unprintable(r):
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// plainHTML is the JSON text b with the escapes \u003c, \u003e and \u0026
// written as the <, > and & they stand for. SetEscapeHTML(false) keeps
// the encoder from writing them, but not what was encoded before it: a
// record's body and derived fields are printed as stored
// (json.RawMessage), which json.Marshal escaped. In JSON text a backslash
// occurs only in a string, where it starts an escape: each escape is read
// whole, so an escaped backslash followed by "u003c" stays as it is.
func plainHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			c := byte(0)
			switch string(b[i+2 : i+6]) {
			case "003c":
				c = '<'
			case "003e":
				c = '>'
			case "0026":
				c = '&'
			}
			if c != 0 {
				out = append(out, c)
				i += 5
				continue
			}
		}
		out = append(out, b[i], b[i+1])
		i++
	}
	return out
}

var (
	marshalerType = reflect.TypeFor[json.Marshaler]()
	rawType       = reflect.TypeFor[json.RawMessage]()
)

// noNullLists returns a copy of v in which every nil slice the encoder
// would print as null is an empty one. Values that encode themselves
// (json.Marshaler, json.RawMessage) and byte slices are left as they are.
func noNullLists(v reflect.Value) reflect.Value {
	t := v.Type()
	if t == rawType || t.Implements(marshalerType) {
		return v
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(noNullLists(v.Elem()))
		return p
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(t).Elem()
		out.Set(noNullLists(v.Elem()))
		return out
	case reflect.Struct:
		out := reflect.New(t).Elem()
		out.Set(v)
		for i := range t.NumField() {
			if f := out.Field(i); f.CanSet() {
				f.Set(noNullLists(f))
			}
		}
		return out
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return v
		}
		out := reflect.MakeSlice(t, v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(noNullLists(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(t, v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), noNullLists(it.Value()))
		}
		return out
	}
	return v
}

// checkOutput holds data, a verb's --json output, to the schema document
// it publishes (b.Output; "" holds nothing) with the card's JSON Schema
// library, as every record and declaration is: output that breaks the
// published contract is this program's bug, refused before anything is
// printed, so that no script reads it. What a large output's memo under
// .git/reason/ (the session's, when the verb opened one) knows is not
// validated again.
func (b *base) checkOutput(data []byte) error {
	name, doc := b.Output, []byte(nil)
	if b.writes != "" {
		var err error
		k, _ := writtenKind(b.writes)
		if doc, err = record.WriteOutput(b.writes, k); err != nil {
			return err
		}
		name = "write " + b.writes
	}
	if name == "" {
		return nil
	}
	o, err := schemas.OutputDocument(name, doc)
	if err != nil {
		return err
	}
	var memo schemas.OutputMemo
	if b.session != nil {
		if sess := b.session(); sess != nil {
			memo = sess.Store.OutputChecks(o.Name, o.Doc)
		}
	}
	return o.Check(data, memo, "nothing was printed: this is a bug of git reason, please report it (the command prints its text without --json)")
}

// jqParseError says where a --jq expression stops parsing, in jq's
// terms: an expression cut short is said so, not "unexpected EOF".
func jqParseError(expr string, err error) error {
	var pe *gojq.ParseError
	switch {
	case !errors.As(err, &pe):
	case pe.Token == "" && pe.Offset >= len(expr):
		return ops.Usage("--jq %q: the expression ends too soon: close every '[', '(' and '{', and every string", expr)
	default:
		return ops.Usage("--jq %q: %v at character %d", expr, err, pe.Offset)
	}
	return ops.Usage("--jq %q: %v", expr, err)
}

// jqRunError is a --jq expression that parses but fails on the output
// (error("x"), .[0] of an object): bad usage (exit 2), unless a write
// verb stored its record first (printRecord).
type jqRunError struct{ error }

func (e jqRunError) Unwrap() error { return e.error }

// exportJQ prints what the jq expression makes of data (exportJSON's
// output), one result per line: strings raw, everything else as compact
// JSON, as gh's --jq does.
func exportJQ(w io.Writer, data []byte, expr string) error {
	q, err := gojq.Parse(expr)
	if err != nil {
		return jqParseError(expr, err)
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return err
	}
	doc = jqNumbers(doc)
	iter := q.Run(doc)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := r.(error); ok {
			return jqRunError{ops.Usage("--jq %q: %v", expr, err)}
		}
		if s, ok := r.(string); ok {
			fmt.Fprintln(w, s)
			continue
		}
		line, err := gojq.Marshal(r)
		if err != nil {
			return err
		}
		// As inert as --json: the printable filter would write a
		// character past U+FFFF or a byte that is no UTF-8 in Go's
		// escapes (\U000e0041, \x9b), which no JSON reader reads.
		fmt.Fprintf(w, "%s\n", inertJSON(line))
	}
}

// jqNumbers turns json.Number into the int or float64 gojq computes with.
func jqNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = jqNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = jqNumbers(x[k])
		}
	}
	return v
}

// formatFlag wires --format into a report verb (handover, context).
func formatFlag(dest *string) cli.Flag {
	return &cli.StringFlag{Name: "format", Usage: "`FORMAT`: text (the default on a terminal) or markdown (the default in a pipe, for pasting or posting)", Destination: dest}
}

// formatOrJSON refuses --format given with --json (or --jq, which implies
// it): each says how the output prints, and, as git refuses options that
// cannot be used together, neither is dropped unsaid.
func (b *base) formatOrJSON(format string) error {
	if format == "" || !b.JSON {
		return nil
	}
	flag := "--json"
	if b.JQ != "" {
		flag = "--jq"
	}
	return ops.Usage("--format %s and %s exclude each other: give one", format, flag)
}

// reportFormat is the format a report prints in: the one given, else
// text on a terminal and markdown anywhere else, so that a person reads
// <ada@example.com> and a script piping the report into a pull request
// comment keeps getting markdown whose record text is inert.
func (b *base) reportFormat(given string) (ops.Format, error) {
	if given != "" {
		return ops.ParseFormat(given)
	}
	if terminal(unfiltered(b.Out)) != nil {
		return ops.FormatText, nil
	}
	return ops.FormatMarkdown, nil
}
