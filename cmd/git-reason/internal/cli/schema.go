package cli

import (
	"encoding/json"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
	"git-reason/schemas"
)

// outputNames lists the commands whose --json output has a schema.
func outputNames() string {
	names := make([]string, 0, len(schemas.Outputs)+len(writesKind))
	for _, w := range writesKind {
		if string(w.kind) != w.verb {
			names = append(names, w.verb)
		}
	}
	for n := range schemas.Outputs {
		if n == "question" {
			n += " (show --question)"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// writesKind is the record kind each write verb prints with --json: the
// record and the commit that stores it, whose schema (schema VERB) is
// record.WriteOutput's, made from the kind's (schema KIND). plan, a kind
// too, is the kind's name there; its output is held to its document all
// the same.
// A list, not a map: every command initialises this package, and a map
// literal is built at start-up (TestStartupBuildsLittle).
var writesKind = [...]struct {
	verb string
	kind record.Kind
}{
	{"assess", record.KindAssessment}, {"plan", record.KindPlan}, {"disagree", record.KindDisagreement},
	{"resolve", record.KindResolution}, {"conclude", record.KindConclusion}, {"validate", record.KindValidation},
	{"attempt", record.KindAttempt}, {"close", record.KindClosure}, {"reopen", record.KindReopening},
	{"withdraw", record.KindWithdrawal},
}

// writtenKind is the kind verb writes (writesKind), if it writes one.
func writtenKind(verb string) (record.Kind, bool) {
	for _, w := range writesKind {
		if w.verb == verb {
			return w.kind, true
		}
	}
	return "", false
}

type schemaOptions struct {
	base
	Kind   record.Kind
	Output string // a command whose --json output has a schema, instead of a kind
	Writes string // a verb that writes a record (writesKind), instead of a kind
}

func schemaCommand() *cli.Command {
	o := &schemaOptions{}
	return &cli.Command{
		Usage: "print a record kind's schemas: {envelope, body, derived}, or the schema of a command's --json output (" + outputNames() + "); self-contained JSON Schema 2020-12",
		Flags: []cli.Flag{o.jsonFlag()},
		Action: func(c *cli.Context) error {
			o.bind(c)
			if !c.Args().Present() {
				return ops.Usage("missing KIND: usage: git reason schema %s", c.Command.ArgsUsage)
			}
			// A sub-verb's output is named by its path: schema task delete.
			if name := strings.Join(c.Args().Slice(), " "); schemas.Outputs[name] != "" {
				o.Output = name
				return runSchema(o)
			}
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			// A name that is a kind too (plan) is the kind's.
			if k, ok := writtenKind(c.Args().First()); ok && record.Kind(c.Args().First()) != k {
				o.Writes = c.Args().First()
				return runSchema(o)
			}
			kind, err := record.ParseKind(c.Args().First())
			if err != nil {
				// The published outputs are the other names it takes; a
				// name typed a letter or two wrong is said, as a verb's is.
				names := append(slices.Collect(maps.Keys(schemas.Outputs)), kindNames()...)
				slices.Sort(names)
				if best := ops.Nearest(names, c.Args().First()); best != "" {
					return ops.Usage("%v, or a command whose --json output it gives: did you mean '%s'? (see 'git reason schema -h')", err, best)
				}
				return ops.Usage("%v, or a command whose --json output it gives (see 'git reason schema -h')", err)
			}
			o.Kind = kind
			return runSchema(o)
		},
	}
}

// runSchema prints the schemas; they are JSON with or without --json.
func runSchema(o *schemaOptions) error {
	if o.Writes != "" {
		k, _ := writtenKind(o.Writes)
		doc, err := record.WriteOutput(o.Writes, k)
		if err != nil {
			return err
		}
		return o.render(doc, func(w io.Writer) error { return exportJSON(w, doc) })
	}
	if o.Output != "" {
		doc, err := schemas.FS.ReadFile(schemas.Outputs[o.Output])
		if err != nil {
			return err
		}
		return o.render(json.RawMessage(doc), func(w io.Writer) error { return exportJSON(w, json.RawMessage(doc)) })
	}
	out := map[string]json.RawMessage{}
	for _, part := range []string{"envelope", "body", "derived"} {
		doc, err := record.SchemaDocument(o.Kind, part)
		if err != nil {
			return err
		}
		out[part] = doc
	}
	return o.render(out, func(w io.Writer) error { return exportJSON(w, out) })
}
