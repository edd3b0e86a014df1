package cli

import (
	"encoding/json"
	"io"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type schemaOptions struct {
	base
	Kind record.Kind
}

func schemaCommand() *cli.Command {
	o := &schemaOptions{}
	return &cli.Command{
		Name:      "schema",
		Usage:     "print a record kind's schemas: {envelope, body, derived}, self-contained JSON Schema 2020-12",
		ArgsUsage: "KIND",
		Flags:     []cli.Flag{o.jsonFlag()},
		Action: func(c *cli.Context) error {
			o.bind(c)
			if !c.Args().Present() {
				return ops.Usage("missing KIND: usage: git reason schema KIND")
			}
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			kind, err := record.ParseKind(c.Args().First())
			if err != nil {
				return err
			}
			o.Kind = kind
			return runSchema(o)
		},
	}
}

// runSchema prints the schemas; they are JSON with or without --json.
func runSchema(o *schemaOptions) error {
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
