package ops

import (
	"fmt"
	"io/fs"
	"sync"

	"git-reason/schemas"
	"git-reason/share"
)

// ToolSpec is one row of share/tools.yaml: a tool, the command line verb
// it projects (none for a tool that exists only in MCP) and its execution
// policy.
type ToolSpec struct {
	Name             string `json:"name" yaml:"name"`
	Description      string `json:"description" yaml:"description"`
	Verb             string `json:"verb,omitempty" yaml:"verb"`
	ExecutionClass   string `json:"execution_class" yaml:"execution_class"`
	Risk             string `json:"risk" yaml:"risk"`
	CostHint         string `json:"cost_hint" yaml:"cost_hint"`
	ConcurrencySafe  bool   `json:"concurrency_safe" yaml:"concurrency_safe"`
	Idempotent       bool   `json:"idempotent" yaml:"idempotent"`
	ContactsAdvisors bool   `json:"contacts_advisors" yaml:"contacts_advisors"`
}

// Policy is a row's execution policy as a tool's _meta carries it,
// verbatim: every field of the row but its name and description. Hosts
// route with it; the server never assigns an executor.
func (t ToolSpec) Policy() map[string]any {
	p := map[string]any{"execution_class": t.ExecutionClass, "risk": t.Risk, "cost_hint": t.CostHint,
		"concurrency_safe": t.ConcurrencySafe, "idempotent": t.Idempotent, "contacts_advisors": t.ContactsAdvisors}
	if t.Verb != "" {
		p["verb"] = t.Verb
	}
	return p
}

// Execution classes.
const (
	ClassRead    = "read"
	ClassAnalyze = "analyze"
	ClassMutate  = "mutate"
)

var (
	tableOnce sync.Once
	table     []ToolSpec
	tableErr  error
)

// Tools returns the rows of the embedded share/tools.yaml, in declaration
// order, after validating the file against schemas/share.tools.json.
func Tools() ([]ToolSpec, error) {
	tableOnce.Do(func() {
		data, err := fs.ReadFile(share.FS, share.ToolsFile)
		if err == nil {
			table, err = ParseTools(data)
		}
		tableErr = err
	})
	return table, tableErr
}

// ParseTools decodes a tools table (YAML) as every declarative file is
// decoded, validated against schemas/share.tools.json, and returns its
// rows. Names must be unique.
func ParseTools(data []byte) ([]ToolSpec, error) {
	var file struct {
		Tools []ToolSpec `yaml:"tools"`
	}
	doc, err := schemas.Decode("share/"+share.ToolsFile, data, schemas.ShareTools, &file)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, t := range file.Tools {
		if seen[t.Name] {
			return nil, doc.ErrorAt(fmt.Sprintf("/tools/%d/name", i), "tool "+t.Name+" is declared twice")
		}
		seen[t.Name] = true
	}
	return file.Tools, nil
}
