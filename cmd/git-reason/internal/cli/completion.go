package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// shells are the shells "completion" writes a script for.
var shells = map[string]func(*complCmd) string{"bash": bash.script, "zsh": zshScript, "fish": fish.script}

// shellScript is how one shell's completion is written: fixed text
// around two switches the command tree fills in, __git_reason_spec (a
// case per command, spec) and __git_reason_flag (a case per kind of flag
// value, valueCases with short and anyVerb: flagCase takes the patterns,
// joined by flagSep, and the kind).
type shellScript struct {
	head, middle, tail string // the text before, between and after the switches
	spec               func(b *strings.Builder, c *complCmd)
	flagCase, flagSep  string
	short              bool
	anyVerb            func(name string) string
}

func (s shellScript) script(root *complCmd) string {
	var b strings.Builder
	b.WriteString(s.head)
	root.walk(func(c *complCmd) { s.spec(&b, c) })
	b.WriteString(s.middle)
	valueCases(root, s.short, s.anyVerb, func(pats []string, kind string) {
		fmt.Fprintf(&b, s.flagCase, strings.Join(pats, s.flagSep), shQuote(kind))
	})
	b.WriteString(s.tail)
	return b.String()
}

// anyCommand is the pattern of a global flag's long name on any command
// line, as bash and zsh spell it: the star left outside the quotes.
func anyCommand(name string) string { return "*" + shQuote(" --"+name) }

func completionCommand() *cli.Command {
	return &cli.Command{
		Action: func(c *cli.Context) error {
			if !c.Args().Present() {
				return ops.Usage("missing SHELL: usage: git reason completion bash|zsh|fish")
			}
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			script, ok := shells[c.Args().First()]
			if !ok {
				return ops.Usage("no completion for shell %q: give bash, zsh or fish", c.Args().First())
			}
			_, err := fmt.Fprint(c.App.Writer, script(completionSpec(c.App)))
			return err
		},
	}
}

// completeCommand is what the scripts run for the values only the
// repository knows. It is quick and quiet: on any error it prints nothing
// and exits 1, so a TAB never prints an error over the command line.
func completeCommand() *cli.Command {
	var describe bool
	return &cli.Command{
		Hidden: true,
		Flags:  []cli.Flag{&cli.BoolFlag{Name: "describe", Destination: &describe}},
		OnUsageError: func(*cli.Context, error, bool) error {
			return failure("")
		},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) == 0 || len(args) > 3 {
				return failure("")
			}
			req := ops.CompleteRequest{What: args[0]}
			if len(args) > 1 {
				req.Kind = args[1]
			}
			if len(args) > 2 {
				req.Task = args[2]
			}
			sess, err := ops.Open(c.Context, ops.Options{})
			if err != nil {
				return failure("")
			}
			list, err := sess.Complete(c.Context, req)
			if err != nil {
				return failure("")
			}
			var b strings.Builder
			for _, cand := range list {
				if !record.ShellWord(cand.Value) {
					continue
				}
				b.WriteString(cand.Value)
				if d := oneLine(cand.Description); describe && d != "" {
					b.WriteString("\t" + d)
				}
				b.WriteByte('\n')
			}
			_, err = fmt.Fprint(c.App.Writer, b.String())
			return err
		},
	}
}

// oneLine makes a description safe for a completion line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(record.Printable(s)), " ")
}

// complCmd is what a completion script knows about one command: its
// sub-verbs, flags and positional arguments, all read from the
// urfave/cli definitions so that the scripts cannot drift from them.
type complCmd struct {
	Path  string // "" for git reason itself, "assess", "check neutrality"
	Name  string
	Usage string
	Subs  []*complCmd
	Flags []complFlag
	// Args is the value kind of each positional argument; the last
	// repeats when Repeat. A kind is one of those valueKind returns, or
	// several joined by "|" where an optional argument may be left out.
	Args   []string
	Repeat bool
}

// complFlag is one flag: its names (long first, without dashes), its
// usage, and the kind of its value ("" for a switch).
type complFlag struct {
	Names []string
	Usage string
	Value string
}

// completionSpec reads the command tree of app.
func completionSpec(app *cli.App) *complCmd {
	root := &complCmd{Name: "git reason", Usage: app.Usage}
	root.Flags = complFlags("", app.Flags)
	if !hasFlag(root.Flags, "help") {
		root.Flags = append(root.Flags, complFlag{Names: []string{"help", "h"}, Usage: "show help"})
	}
	// The global flags that mean something after a verb too.
	var globals []complFlag
	for _, f := range root.Flags {
		if f.Names[0] != "version" {
			globals = append(globals, f)
		}
	}
	verbs := []string{}
	for _, c := range app.Commands {
		if c.Hidden {
			continue
		}
		if c.Name != "help" {
			verbs = append(verbs, c.Name)
		}
	}
	for _, c := range app.Commands {
		if c.Hidden {
			continue
		}
		cc := complCommand(c, "", globals)
		if c.Name == "help" {
			cc.Args, cc.Repeat = []string{"words:" + strings.Join(verbs, ",")}, false
		}
		root.Subs = append(root.Subs, cc)
	}
	return root
}

func complCommand(c *cli.Command, parent string, globals []complFlag) *complCmd {
	path := strings.TrimSpace(parent + " " + c.Name)
	cc := &complCmd{Path: path, Name: c.Name, Usage: c.Usage}
	for _, sub := range c.Subcommands {
		if !sub.Hidden && sub.Name != "help" {
			cc.Subs = append(cc.Subs, complCommand(sub, path, globals))
		}
	}
	cc.Flags = complFlags(path, c.Flags)
	// Global flags may follow the verb too (reorder moves them).
	for _, g := range globals {
		if !hasFlag(cc.Flags, g.Names[0]) {
			cc.Flags = append(cc.Flags, g)
		}
	}
	cc.Args, cc.Repeat = argKinds(c.ArgsUsage)
	return cc
}

func hasFlag(flags []complFlag, name string) bool {
	for _, f := range flags {
		if f.Names[0] == name {
			return true
		}
	}
	return false
}

func complFlags(path string, flags []cli.Flag) []complFlag {
	var out []complFlag
	for _, f := range flags {
		d, ok := f.(cli.DocGenerationFlag)
		if !ok {
			continue
		}
		names := append([]string(nil), f.Names()...)
		// The long name first: "max-count" before "n".
		for i, n := range names {
			if len(n) > 1 && i > 0 {
				names[0], names[i] = names[i], names[0]
				break
			}
		}
		placeholder, usage := unquoteUsage(d.GetUsage())
		cf := complFlag{Names: names, Usage: usage}
		if d.TakesValue() {
			cf.Value = flagKind(path, names[0], placeholder)
		}
		out = append(out, cf)
	}
	return out
}

// schemaEnums names the flags whose values a record schema enumerates:
// the completion offers exactly what admission accepts.
var schemaEnums = map[string][2]string{
	"assess materiality":   {"assessment", "materiality"},
	"assess reversibility": {"assessment", "reversibility"},
	"attempt outcome":      {"attempt", "outcome"},
	"close outcome":        {"closure", "outcome"},
	"validate manual":      {"validation", "result"},
}

// flagKind is the value kind of flag name of the command at path.
func flagKind(path, name, placeholder string) string {
	if e, ok := schemaEnums[path+" "+name]; ok {
		if words := schemaEnum(e[0], e[1]); len(words) > 0 {
			return "words:" + strings.Join(words, ",")
		}
	}
	switch name {
	case "profile", "advisor", "kind":
		// Named for a kind of value, the flag takes it whatever its
		// placeholder: the kind its name's placeholder has.
		return valueKind(strings.ToUpper(name))
	}
	if placeholder == "ID" {
		if _, err := record.ParseKind(name); err == nil {
			return "id:" + name
		}
	}
	return valueKind(placeholder)
}

// valueKind maps a usage placeholder to a value kind: a repository's
// tasks, record ids (of a kind), advisors, profiles, remotes or
// revisions (asked of "git reason __complete"), fixed words, files, or
// free text the shell cannot guess.
func valueKind(placeholder string) string {
	switch placeholder {
	case "TASK":
		return "task"
	case "ID", "RECORD":
		return "id:any"
	case "DISAGREEMENT":
		return "id:disagreement"
	case "ADVISOR":
		return "advisor"
	case "PROFILE":
		return "profile"
	case "REMOTE":
		return "remote"
	case "REV":
		return "revision"
	case "KIND":
		return "words:" + strings.Join(kindNames(), ",")
	case "PATH", "FILE", "DIR":
		return "file"
	}
	if strings.Contains(placeholder, "|") && strings.ToLower(placeholder) == placeholder {
		return "words:" + strings.ReplaceAll(placeholder, "|", ",")
	}
	return "text"
}

// argKinds reads the positional arguments from a usage line such as
// "[REMOTE] [TASK...] [--all]": they end at the first flag.
func argKinds(usage string) (kinds []string, repeat bool) {
	var optional []bool
	for _, tok := range strings.Fields(usage) {
		if strings.HasPrefix(strings.TrimLeft(tok, "[("), "-") || strings.HasPrefix(tok, "(") {
			break
		}
		opt := strings.HasPrefix(tok, "[")
		tok = strings.Trim(tok, "[]")
		if strings.HasSuffix(tok, "...") {
			repeat = true
			tok = strings.TrimSuffix(tok, "...")
		}
		kinds = append(kinds, valueKind(tok))
		optional = append(optional, opt)
	}
	// An optional argument may be left out: where it stands, the next
	// one's values are offered too.
	for i := 0; i+1 < len(kinds); i++ {
		if optional[i] && kinds[i] != kinds[i+1] {
			kinds[i] += "|" + kinds[i+1]
		}
	}
	return kinds, repeat
}

// schemaEnum returns the enum of a body property in kind's schema.
func schemaEnum(kind, prop string) []string {
	k, err := record.ParseKind(kind)
	if err != nil {
		return nil
	}
	doc, err := record.SchemaDocument(k, "body")
	if err != nil {
		return nil
	}
	var s struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if json.Unmarshal(doc, &s) != nil {
		return nil
	}
	return s.Properties[prop].Enum
}

// walk calls fn for c and every command below it.
func (c *complCmd) walk(fn func(*complCmd)) {
	fn(c)
	for _, s := range c.Subs {
		s.walk(fn)
	}
}

// subNames lists the names of c's sub-verbs.
// valuedFlags spells every name of the flags that take a value as it is
// typed ("-n", "--since"): the word after one is that value, not an
// argument.
func (c *complCmd) valuedFlags() []string {
	var out []string
	for _, f := range c.Flags {
		if f.Value == "" {
			continue
		}
		for _, n := range f.Names {
			if len(n) == 1 {
				out = append(out, "-"+n)
			} else {
				out = append(out, "--"+n)
			}
		}
	}
	return out
}

func (c *complCmd) subNames() []string {
	out := make([]string, len(c.Subs))
	for i, s := range c.Subs {
		out[i] = s.Name
	}
	return out
}

// argSpec is the positional kinds as the scripts read them: space
// separated, the last ending in "..." when it repeats.
func (c *complCmd) argSpec() string {
	s := strings.Join(c.Args, " ")
	if c.Repeat && s != "" {
		s += "..."
	}
	return s
}

// shQuote quotes a word of the completion scripts for sh, bash, zsh and
// fish, as every hint that names a stranger's value does.
var shQuote = record.SingleQuoted

func kindNames() []string {
	out := make([]string, len(record.Kinds))
	for i, k := range record.Kinds {
		out[i] = string(k)
	}
	return out
}

// unquoteUsage splits a flag's usage into the placeholder urfave/cli
// shows for its value (the first `quoted` word) and the usage without
// the quotes.
func unquoteUsage(usage string) (placeholder, text string) {
	start := strings.IndexByte(usage, '`')
	if start < 0 {
		return "", usage
	}
	end := strings.IndexByte(usage[start+1:], '`')
	if end < 0 {
		return "", usage
	}
	placeholder = usage[start+1 : start+1+end]
	return placeholder, usage[:start] + placeholder + usage[start+2+end:]
}
