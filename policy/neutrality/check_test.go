package neutrality

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestCheckerScan(t *testing.T) {
	c, err := NewChecker(&Config{
		Exclude: []string{"src/adapters/**"},
		Allow:   []Allow{{Path: "src/hosts.go", Match: `host = "acme`, Reason: "host identification"}},
	}, testTerms)
	if err != nil {
		t.Fatal(err)
	}
	if c.Covers("src/adapters/acme.go") || !c.Covers("src/b.go") || c.Covers(ConfigPath) {
		t.Error("Covers ignores the exclude glob or checks the configuration itself")
	}
	var a, b Result
	c.Scan(&a, "src/b.go", []byte("x\nvar zeta = acme_cloud\n"))
	c.Scan(&a, "src/logo.bin", []byte("PNG\x00zeta"))
	c.Scan(&b, "src/hosts.go", []byte("host = \"acme cloud\"\nclient := AcmeCloud{}\n"))
	c.Scan(&b, "src/a.go", []byte("gem\n"))
	b.SkipTooLarge("src/big.txt", 10)
	a.Merge(&b)
	res := a.Finish()
	var got []string
	for _, v := range res.Violations {
		got = append(got, fmt.Sprintf("%s:%d:%d:%s", v.Path, v.Line, v.Col, v.Text))
	}
	want := []string{"src/a.go:1:1:gem", "src/b.go:2:5:zeta", "src/b.go:2:12:acme_cloud", "src/hosts.go:2:11:AcmeCloud"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("violations %v, want %v", got, want)
	}
	if res.Files != 3 || res.Binary != 1 || res.Allowed != 1 || !res.Configured {
		t.Errorf("files %d binary %d allowed %d configured %v; want 3, 1, 1, true", res.Files, res.Binary, res.Allowed, res.Configured)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Reason != "larger than 10 bytes" {
		t.Errorf("skipped %v", res.Skipped)
	}
}

func TestNewCheckerErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   *Config
		terms []Term
		want  string
	}{
		{"term without words", &Config{}, []Term{{"..", "vendor dots"}}, `term ".." (declared as vendor dots) has no letter or digit`},
		{"bad glob", &Config{Neutral: []string{"a**"}}, nil, `neutral[0]: glob "a**"`},
	} {
		if _, err := NewChecker(tc.cfg, tc.terms); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

func TestNotConfiguredListsAreEmpty(t *testing.T) {
	r := NotConfigured()
	if r.Configured || r.Violations == nil || r.Skipped == nil {
		t.Errorf("NotConfigured() = %+v; want not configured with empty, non-nil lists", r)
	}
}
