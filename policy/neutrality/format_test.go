package neutrality

import (
	"slices"
	"testing"
)

var sample = &Result{
	Configured: true,
	Violations: []Violation{
		{Path: "src/a.go", Line: 3, Col: 7, Name: "Acme Cloud", DeclaredAs: "vendor acme", Text: "acme_cloud"},
		{Path: "src/b.go", Line: 1, Col: 1, Name: "Zeta", DeclaredAs: "provider zeta; advisor zeta", Text: "ZETA"},
	},
	Files:   12,
	Allowed: 1,
	Skipped: []Skipped{{Path: "src/big.txt", Reason: "larger than 1024 bytes"}},
}

func TestViolationString(t *testing.T) {
	var got []string
	for _, v := range sample.Violations {
		got = append(got, v.String())
	}
	want := []string{"src/a.go:3:7: Acme Cloud (declared as vendor acme)",
		"src/b.go:1:1: Zeta (declared as provider zeta; advisor zeta)"}
	if !slices.Equal(got, want) {
		t.Errorf("String:\n%q\nwant:\n%q", got, want)
	}
}

func TestSummary(t *testing.T) {
	for _, tt := range []struct {
		r    *Result
		want string
	}{
		{&Result{}, "neutrality is not configured (no .reason/neutrality.yaml): nothing checked"},
		{&Result{Configured: true, Files: 1}, "0 violations in 1 file"},
		{sample, "2 violations in 12 files, 1 allowed, 1 file not checked"},
	} {
		if got := tt.r.Summary(); got != tt.want {
			t.Errorf("Summary() = %q, want %q", got, tt.want)
		}
	}
}
