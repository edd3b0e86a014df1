package cli

import (
	"encoding/json"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:      "schema",
		Usage:     "print a record kind's schemas: {envelope, body, derived}, self-contained JSON Schema 2020-12",
		ArgsUsage: "KIND",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
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
			out := map[string]json.RawMessage{}
			for _, part := range []string{"envelope", "body", "derived"} {
				doc, err := record.SchemaDocument(kind, part)
				if err != nil {
					return err
				}
				out[part] = doc
			}
			return printJSON(c.App.Writer, out)
		},
	}
}
