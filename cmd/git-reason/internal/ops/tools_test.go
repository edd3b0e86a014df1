package ops

import (
	"regexp"
	"strings"
	"testing"
)

// The tools table is validated against its schema, with errors at
// file:line:column, and names are unique.
func TestParseToolsRefusesBadTables(t *testing.T) {
	good := "tools:\n  - name: a\n    description: d\n    execution_class: read\n    risk: low\n    cost_hint: free\n    concurrency_safe: true\n    idempotent: true\n    contacts_advisors: false\n"
	if _, err := ParseTools([]byte(good)); err != nil {
		t.Fatalf("a good table: %v", err)
	}
	for name, bad := range map[string]string{
		"duplicate":             good + strings.TrimPrefix(good, "tools:\n"),
		"unknown class":         strings.Replace(good, "read", "write", 1),
		"unknown field":         good + "    executor: someone\n",
		"advisors but not paid": strings.Replace(good, "contacts_advisors: false", "contacts_advisors: true", 1),
		"missing risk":          strings.Replace(good, "    risk: low\n", "", 1),
	} {
		_, err := ParseTools([]byte(bad))
		if err == nil {
			t.Errorf("%s: accepted", name)
		} else if !regexp.MustCompile(`^share/tools\.yaml:\d+:\d+: `).MatchString(err.Error()) {
			t.Errorf("%s: %v, want file:line:column: first", name, err)
		}
	}
}
