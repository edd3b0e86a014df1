package advisor

// FuzzLoadOverlay: the declarations loaded
// with a fuzzed repository overlay (.reason/advisors.yaml) over the
// embedded share/ files. Load must never panic, and it returns exactly one
// of an error or a catalog:
//
//   - an error is a *ParseError naming the overlay file (the embedded files
//     are valid, and the overlay exists and is readable), printed on one
//     line, with no catalog and no findings;
//   - a catalog keeps every embedded advisor (an overlay adds and
//     overrides, never removes), holds each advisor id once, and can be used:
//     Validate, Names, FindProfile and Availability in every mode run on
//     it without panicking, Availability returning one entry per advisor;
//   - loading the same file twice gives the same catalog and findings.
//
// Seeds live in testdata/fuzz/FuzzLoadOverlay/; every advisor, vendor and
// model name in them is made up. Long run:
// go test ./advisor/ -run '^$' -fuzz FuzzLoadOverlay -fuzztime 5m

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"git-reason/advisor/transport"
	"git-reason/policy"
)

var (
	fzBaseOnce sync.Once
	fzBaseIDs  []string
	fzBaseErr  error
)

// fzBaseAdvisors is the ids of the embedded advisors, loaded once.
func fzBaseAdvisors(tb testing.TB) []string {
	fzBaseOnce.Do(func() {
		cat, _, err := Load(Sources{})
		if err != nil {
			fzBaseErr = err
			return
		}
		for _, d := range cat.Advisors {
			fzBaseIDs = append(fzBaseIDs, d.ID)
		}
	})
	if fzBaseErr != nil {
		tb.Fatalf("the embedded declarations do not load: %v", fzBaseErr)
	}
	return fzBaseIDs
}

// fzEnv says every executable is installed and every credential set, so
// that Availability goes as far as the circuits.
type fzEnv struct{}

func (fzEnv) LookPath(string) bool      { return true }
func (fzEnv) CredentialSet(string) bool { return true }

// hasControl reports whether s holds a control character: an error that
// does is not one clean line, and may drive the terminal it is printed on.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) })
}

func FuzzLoadOverlay(f *testing.F) {
	base := fzBaseAdvisors(f)
	f.Add([]byte("advisors:\n  - id: adv-fuzz\n    transport: peer\n    adapter: peer\n    base_url: http://127.0.0.1:9/\n    capabilities: [reasoning]\n"))
	f.Fuzz(func(t *testing.T, overlay []byte) {
		path := filepath.Join(t.TempDir(), "advisors.yaml")
		if err := os.WriteFile(path, overlay, 0o644); err != nil {
			t.Fatal(err)
		}
		cat, findings, err := Load(Sources{Repository: path})
		if err != nil {
			t.Logf("refused: %.300s", err)
			var pe *ParseError
			switch {
			case cat != nil || findings != nil:
				t.Errorf("Load returned an error and a catalog (%v findings): %v", len(findings), err)
			case !errors.As(err, &pe):
				t.Errorf("Load of a readable overlay failed with %T, not a *ParseError: %v", err, err)
			case pe.File != path:
				t.Errorf("parse error names %q, not the overlay %q: %v", pe.File, path, err)
			case hasControl(err.Error()):
				t.Errorf("parse error is not one clean line: %q", err.Error())
			}
			return
		}
		if cat == nil {
			t.Fatalf("Load returned neither an error nor a catalog")
		}
		t.Logf("loaded: %d advisors, %d findings", len(cat.Advisors), len(findings))
		seen := map[string]bool{}
		for _, d := range cat.Advisors {
			if seen[d.ID] {
				t.Errorf("advisor %q appears twice in the catalog", d.ID)
			}
			seen[d.ID] = true
		}
		for _, id := range base {
			if !seen[id] {
				t.Errorf("the overlay removed embedded advisor %q", id)
			}
		}
		for _, fd := range findings {
			if fd.Code == "" || fd.Severity == "" {
				t.Errorf("finding without a code or severity: %+v", fd)
			}
		}
		_ = Validate(cat)
		_ = cat.Names()
		_, _ = FindProfile(cat, "default", "default")
		for _, mode := range []policy.Mode{policy.ModeNormal, policy.ModeOffline, policy.ModeCI, "bogus"} {
			snap := Availability(cat.Advisors, Inputs{Env: fzEnv{}, Mode: mode, Origin: "o", Now: time.Unix(1e9, 0),
				Outcomes: []Outcome{{Advisor: "adv-fuzz", Origin: "o", Status: OutcomeFailed, FailureKind: transport.Timeout, At: time.Unix(1e9-1, 0)}}})
			if len(snap) != len(cat.Advisors) {
				t.Errorf("Availability in mode %s returned %d advisors of %d", mode, len(snap), len(cat.Advisors))
			}
		}
		again, findings2, err := Load(Sources{Repository: path})
		if err != nil {
			t.Fatalf("the second load of the same overlay failed: %v", err)
		}
		if !reflect.DeepEqual(cat, again) || !reflect.DeepEqual(findings, findings2) {
			t.Errorf("two loads of the same overlay differ")
		}
	})
}
