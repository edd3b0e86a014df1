package neutrality

import (
	"bytes"
	"encoding/json"
	"strings"
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

func TestFormatText(t *testing.T) {
	var b bytes.Buffer
	if err := FormatText(&b, sample.Violations); err != nil {
		t.Fatal(err)
	}
	want := "src/a.go:3:7: Acme Cloud (declared as vendor acme)\n" +
		"src/b.go:1:1: Zeta (declared as provider zeta; advisor zeta)\n"
	if b.String() != want {
		t.Errorf("FormatText:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestFormatJSON(t *testing.T) {
	var b bytes.Buffer
	if err := FormatJSON(&b, sample); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, b.String())
	}
	v := got["violations"].([]any)[0].(map[string]any)
	wantV := map[string]any{"path": "src/a.go", "line": 3.0, "col": 7.0, "name": "Acme Cloud", "declared_as": "vendor acme", "text": "acme_cloud"}
	for k, want := range wantV {
		if v[k] != want {
			t.Errorf("violation field %s = %v, want %v", k, v[k], want)
		}
	}
	if len(v) != len(wantV) {
		t.Errorf("violation has fields %v, want exactly %v", v, wantV)
	}
	for k, want := range map[string]any{"configured": true, "files": 12.0, "allowed": 1.0, "binary": 0.0} {
		if got[k] != want {
			t.Errorf("field %s = %v, want %v", k, got[k], want)
		}
	}

	b.Reset()
	if err := FormatJSON(&b, &Result{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"configured": false`, `"violations": []`, `"skipped": []`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("empty result %s lacks %s", b.String(), want)
		}
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
