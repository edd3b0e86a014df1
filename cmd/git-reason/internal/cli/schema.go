package cli

import (
	"encoding/json"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
	"git-reason/schemas"
)

// outputNames lists the commands whose --json output has a schema.
func outputNames() string {
	names := make([]string, 0, len(schemas.Outputs))
	for n := range schemas.Outputs {
		if n == "question" {
			n += " (show --question)"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// writesKind is the record kind each write verb prints with --json. Its
// schemas are the kind's, which schema names by the kind, not the verb:
// the verb's output holds the commit beside the record, which the
// record's envelope does not admit, so schema VERB would publish a
// document the verb's output does not satisfy. schema VERB names the kind.
var writesKind = map[string]record.Kind{
	"assess": record.KindAssessment, "plan": record.KindPlan, "disagree": record.KindDisagreement,
	"resolve": record.KindResolution, "conclude": record.KindConclusion, "validate": record.KindValidation,
	"attempt": record.KindAttempt, "close": record.KindClosure, "reopen": record.KindReopening,
	"withdraw": record.KindWithdrawal,
}

type schemaOptions struct {
	base
	Kind   record.Kind
	Output string // a command whose --json output has a schema, instead of a kind
}

func schemaCommand() *cli.Command {
	o := &schemaOptions{}
	return &cli.Command{
		Usage: "print a record kind's schemas: {envelope, body, derived}, or the schema of a command's --json output (" + outputNames() + "); self-contained JSON Schema 2020-12",
		Flags: []cli.Flag{o.jsonFlag()},
		Action: func(c *cli.Context) error {
			o.bind(c)
			if !c.Args().Present() {
				return ops.Usage("missing KIND: usage: git reason schema KIND")
			}
			// A sub-verb's output is named by its path: schema task delete.
			if name := strings.Join(c.Args().Slice(), " "); schemas.Outputs[name] != "" {
				o.Output = name
				return runSchema(o)
			}
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			kind, err := record.ParseKind(c.Args().First())
			if k, ok := writesKind[c.Args().First()]; ok && err != nil {
				return ops.Usage("%s is a command that writes %s records: run 'git reason schema %s' for their schemas", c.Args().First(), k, k)
			}
			if err != nil {
				// The published outputs are the other names it takes.
				return ops.Usage("%v, or a command whose --json output it gives (see 'git reason schema -h')", err)
			}
			o.Kind = kind
			return runSchema(o)
		},
	}
}

// runSchema prints the schemas; they are JSON with or without --json.
func runSchema(o *schemaOptions) error {
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
