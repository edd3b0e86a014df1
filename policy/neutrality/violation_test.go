package neutrality

import (
	"slices"
	"testing"
)

func TestViolationString(t *testing.T) {
	var got []string
	for _, v := range []Violation{
		{Path: "src/a.go", Line: 3, Col: 7, Name: "Acme Cloud", DeclaredAs: "vendor acme", Text: "acme_cloud"},
		{Path: "src/b.go", Line: 1, Col: 1, Name: "Zeta", DeclaredAs: "provider zeta; advisor zeta", Text: "ZETA"},
	} {
		got = append(got, v.String())
	}
	want := []string{"src/a.go:3:7: Acme Cloud (declared as vendor acme)",
		"src/b.go:1:1: Zeta (declared as provider zeta; advisor zeta)"}
	if !slices.Equal(got, want) {
		t.Errorf("String:\n%q\nwant:\n%q", got, want)
	}
}
