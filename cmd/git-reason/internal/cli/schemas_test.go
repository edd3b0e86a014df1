package cli

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"git-reason/record"
	"git-reason/schemas"
)

// printsRecord are the verbs whose --json output is a stored record: its
// schemas are the record kind's (git reason schema KIND, which schema VERB
// names: writesKind), and output_records.txtar holds each verb's output to
// them. show prints a record of any kind.
var printsRecord = func() map[string]record.Kind {
	m := map[string]record.Kind{"show": ""}
	for _, w := range writesKind {
		m[w.verb] = w.kind
	}
	return m
}()

// variants are the published outputs that a flag of a verb selects:
// show --question prints the reassembled question, not a record.
var variants = map[string]string{"question": "show"}

// Every verb and sub-verb with --json publishes the schema of what it
// prints: a record kind's documents or an output document in schemas/
// (schemas.Outputs) that compiles; and every published output names a
// verb that has --json. A verb given --json without a schema fails here.
func TestEveryJSONOutputHasASchema(t *testing.T) {
	app := newApp(&Servers{}, []string{"git-reason", "help"}, nil, nil, nil)
	withJSON := map[string]bool{}
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			path := strings.TrimSpace(prefix + " " + c.Name)
			walk(path, c.Subcommands)
			if isFlag(c.Flags, "--json") {
				withJSON[path] = true
			}
		}
	}
	walk("", app.Commands)
	if len(withJSON) < 30 {
		t.Fatalf("found %d verbs with --json, want every verb: %v", len(withJSON), withJSON)
	}
	for path := range withJSON {
		if kind, ok := printsRecord[path]; ok {
			if kind == "" {
				continue
			}
			for _, part := range []string{"envelope", "body", "derived"} {
				if _, err := record.SchemaDocument(kind, part); err != nil {
					t.Errorf("git reason %s --json prints a %s, whose %s schema does not load: %v", path, kind, part, err)
				}
			}
			continue
		}
		file, ok := schemas.Outputs[path]
		if !ok {
			t.Errorf("git reason %s --json has no published schema: add schemas/output.<name>.json, its row in schemas.Outputs, and a run of the command in output_commands.txtar", path)
			continue
		}
		doc, err := schemas.FS.ReadFile(file)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if _, err := schemas.CompileDocument(file, doc); err != nil {
			t.Errorf("%s: %s does not compile: %v", path, file, err)
		}
		if !strings.Contains(string(doc), `"additionalProperties": false`) {
			t.Errorf("%s: %s admits any field: give its objects additionalProperties false", path, file)
		}
	}
	for name := range schemas.Outputs {
		verb := name
		if v, ok := variants[name]; ok {
			verb = v
		}
		if !withJSON[verb] {
			t.Errorf("schemas.Outputs has %q, but git reason %s has no --json", name, verb)
		}
	}
}
