package advisor

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func load(t *testing.T, src Sources) (*Catalog, []Finding, error) {
	t.Helper()
	if src.Base == nil {
		src.Base = fixtureBase()
	}
	if src.RepositoryTrusted == nil {
		// These tests are about merging: the repository overlay is
		// trusted here; trust_test.go holds what untrusted means.
		src.RepositoryTrusted = func(string) bool { return true }
	}
	return Load(src)
}

// Strict parsing: every refusal names the file, the line and the field.
func TestStrictParseErrors(t *testing.T) {
	cases := []struct {
		name, yaml  string
		line, col   int
		field, want string
	}{
		{"unknown advisor field", "advisors:\n  - id: alpha\n    modle: x\n", 3, 5, "advisors[0].modle", "unknown field"},
		{"unknown top-level field", "advisers: []\n", 1, 1, "advisers", "unknown field"},
		{"unknown nested field", "vendors:\n  - id: v\n    models:\n      - id: m\n        size: 3\n", 5, 9, "vendors[0].models[0].size", "unknown field"},
		{"bool given a string", "advisors:\n  - id: alpha\n    local: yes\n", 3, 12, "advisors[0].local", "expected true or false"},
		{"string given a number", "advisors:\n  - id: alpha\n    model: 4\n", 3, 12, "advisors[0].model", "expected a string, got a number"},
		{"list given a string", "advisors:\n  - id: alpha\n    capabilities: reasoning\n", 3, 19, "advisors[0].capabilities", "expected a list"},
		{"list item given a mapping", "advisors:\n  - id: alpha\n    command:\n      - a: b\n", 4, 9, "advisors[0].command[0]", "expected a string"},
		{"section given a mapping", "advisors:\n  id: alpha\n", 2, 3, "advisors", "expected a list"},
		{"null value", "advisors:\n  - id: alpha\n    base_url:\n", 3, 14, "advisors[0].base_url", "null"},
		{"bad duration", "advisors:\n  - id: alpha\n    cooldown: soon\n", 3, 15, "advisors[0].cooldown", `expected a value matching ^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$, got a string`},
		{"schema: missing id", "advisors:\n  - transport: api\n", 2, 5, "advisors[0]", `missing required field "id"`},
		{"schema: bad id", "profiles:\n  - id: 'two words'\n", 2, 9, "profiles[0].id", "expected a value matching"},
		{"schema: bad credential name", "advisors:\n  - id: alpha\n    credential: has-dash\n", 3, 17, "advisors[0].credential", "expected a value matching"},
		{"schema: repeated capability", "advisors:\n  - id: alpha\n    capabilities: [a, a]\n", 3, 19, "advisors[0].capabilities", "equal"},
		{"schema: bad order item", "order: ['-x']\n", 1, 9, "order[0]", "expected a value matching"},
		{"not a mapping", "- alpha\n", 1, 1, "", "expected a mapping"},
		{"yaml syntax", "advisors: [\n", 0, 0, "", ""},
		{"two documents", "advisors: []\n---\nadvisors: []\n", 0, 0, "", "more than one YAML document"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, "advisors.yaml", tc.yaml)
			_, _, err := load(t, Sources{Repository: file})
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *ParseError", err)
			}
			if pe.File != file {
				t.Errorf("file = %q, want %q", pe.File, file)
			}
			if tc.line != 0 && (pe.Line != tc.line || pe.Column != tc.col) {
				t.Errorf("at %d:%d, want %d:%d (%v)", pe.Line, pe.Column, tc.line, tc.col, err)
			}
			if pe.Field != tc.field {
				t.Errorf("field = %q, want %q", pe.Field, tc.field)
			}
			if !strings.Contains(pe.Msg, tc.want) {
				t.Errorf("message %q does not say %q", pe.Msg, tc.want)
			}
			if !strings.HasPrefix(err.Error(), file+":") {
				t.Errorf("error %q does not start with the file", err)
			}
		})
	}
}

// A fault in an embedded file names it as share/<file>.
func TestStrictParseBaseFile(t *testing.T) {
	base := fixtureBase()
	base["profiles.yaml"].Data = []byte("profiles:\n  - id: default\n    mode: normal\n    colour: red\n")
	_, _, err := load(t, Sources{Base: base})
	if err == nil || !strings.HasPrefix(err.Error(), "share/profiles.yaml:4:5: profiles[0].colour: unknown field") {
		t.Fatalf("got %v", err)
	}
}

func TestBaseSectionsStayInTheirFiles(t *testing.T) {
	base := fixtureBase()
	base["providers.yaml"].Data = []byte("providers: []\nvendors: []\n")
	_, _, err := load(t, Sources{Base: base})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Field != "vendors" || pe.Line != 2 {
		t.Fatalf("got %v, want vendors refused in providers.yaml at line 2", err)
	}
}

func TestOverlayAddOverrideReorder(t *testing.T) {
	repo := writeFile(t, "repo.yaml", `advisors:
  - id: alpha
    cooldown: 30m
    capabilities: [code_review]
  - id: charlie
    local: false
  - id: delta
    transport: cli
    adapter: exec
    executable: delta-cli
    command: [delta-cli]
    capabilities: [drawing]
`)
	c, findings, err := load(t, Sources{Repository: repo})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(c), []string{"alpha", "bravo", "charlie", "delta"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order = %v, want %v (new ids go last)", got, want)
	}
	alpha, _ := c.Advisor("alpha")
	if alpha.Cooldown != Duration(30*time.Minute) || alpha.Credential != "ALPHA_TOKEN" || alpha.Model != "fix-large" {
		t.Errorf("alpha = %+v: want cooldown overridden and the other fields kept", alpha)
	}
	if !reflect.DeepEqual(alpha.Capabilities, []string{"code_review"}) {
		t.Errorf("capabilities = %v, want the overlay's list whole", alpha.Capabilities)
	}
	if len(alpha.Sources) != 2 || alpha.Sources[0] != "share/advisors.yaml:6" || alpha.Sources[1] != repo+":2" {
		t.Errorf("sources = %v", alpha.Sources)
	}
	if charlie, _ := c.Advisor("charlie"); charlie.Local {
		t.Error("local: false in an overlay did not override local: true")
	}
	for _, f := range findings {
		if f.Code != CodeNotLocal {
			t.Errorf("unexpected finding %s", f)
		}
	}
}

func TestOverlayOrderAndPrecedence(t *testing.T) {
	user := writeFile(t, "user.yaml", "advisors:\n  - id: alpha\n    cooldown: 1m\n  - id: mine\n    transport: peer\n    adapter: peer\n    base_url: https://peer.invalid\norder: [bravo]\n")
	repo := writeFile(t, "repo.yaml", "advisors:\n  - id: alpha\n    cooldown: 2m\norder: [charlie, mine]\n")
	c, _, err := load(t, Sources{User: user, Repository: repo})
	if err != nil {
		t.Fatal(err)
	}
	// user: bravo first -> bravo, alpha, charlie, mine; repo: charlie, mine first.
	if got, want := ids(c), []string{"charlie", "mine", "bravo", "alpha"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
	if alpha, _ := c.Advisor("alpha"); alpha.CooldownOrDefault() != 2*time.Minute {
		t.Errorf("cooldown = %s, want the repository's 2m over the user's 1m", alpha.Cooldown)
	}
}

func TestOverlayMissingFilesAreNone(t *testing.T) {
	dir := t.TempDir()
	c, findings, err := load(t, Sources{User: dir + "/nope.yaml", Repository: dir + "/none/advisors.yaml"})
	if err != nil || len(findings) != 0 {
		t.Fatalf("err %v, findings %v", err, findings)
	}
	if got := ids(c); !reflect.DeepEqual(got, []string{"alpha", "bravo", "charlie"}) {
		t.Errorf("order = %v", got)
	}
}

func TestOverlayDirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	_, _, err := load(t, Sources{Repository: dir}) // a directory
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != dir || !strings.Contains(pe.Msg, "not a regular file") {
		t.Fatalf("got %v, want a ParseError saying it is not a regular file", err)
	}
}

func TestEmptyOverlay(t *testing.T) {
	for _, body := range []string{"", "# nothing yet\n", "---\n"} {
		if _, _, err := load(t, Sources{Repository: writeFile(t, "a.yaml", body)}); err != nil {
			t.Errorf("overlay %q: %v", body, err)
		}
	}
}

func TestOverlayExtendsVocabularyAndCatalog(t *testing.T) {
	repo := writeFile(t, "repo.yaml", `capabilities:
  - id: threat_modelling
providers:
  - id: in_house
vendors:
  - id: fixvendor
    models: [{id: fix-large}, {id: fix-small}, {id: fix-huge}]
profiles:
  - id: nightly
    mode: offline
advisors:
  - id: alpha
    model: fix-huge
    provider: in_house
    capabilities: [threat_modelling]
`)
	c, findings, err := load(t, Sources{Repository: repo})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("unexpected finding %s", f)
	}
	if p, ok := c.Profile("nightly"); !ok || p.Mode != "offline" {
		t.Errorf("profile nightly = %+v, %v", p, ok)
	}
	if !c.HasCapability("threat_modelling") || !c.HasCapability("drawing") {
		t.Error("capability vocabulary not extended")
	}
	// models replaced whole: fix-small is gone, so bravo no longer resolves.
	_, findings, _ = load(t, Sources{Repository: writeFile(t, "r.yaml", "vendors:\n  - id: fixvendor\n    models: [{id: fix-large}]\n")})
	if len(findings) != 1 || findings[0].Code != CodeUnresolvedModel || findings[0].Subject != "advisor bravo" {
		t.Errorf("findings = %v, want bravo's model unresolved", findings)
	}
}

func TestRepositoryOverlayPath(t *testing.T) {
	if got := RepositoryOverlayPath("/w"); got != "/w/.reason/advisors.yaml" {
		t.Errorf("RepositoryOverlayPath = %q", got)
	}
}

// A repository's file is a stranger's, read before anything is trusted,
// and 1 MiB holds tens of thousands of entries: an overlay of 20,000
// capabilities, 20,000 advisors and one advisor needing all of them took
// each entry's id along the lists declared so far (minutes of CPU for
// advisors, plan, doctor and trust --show). Finding by id is a map now:
// a load of n entries and one of n/10 each read a few ids an entry.
func TestLargeOverlayLoadsLinearly(t *testing.T) {
	const n = 20000
	overlay := func(n int) string {
		var b strings.Builder
		b.WriteString("capabilities:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - {id: c%05d}\n", i)
		}
		b.WriteString("advisors:\n  - id: alpha\n    capabilities: [")
		for i := range n {
			fmt.Fprintf(&b, "c%05d,", i)
		}
		b.WriteString("reasoning, code_review]\n")
		for i := range n {
			fmt.Fprintf(&b, "  - {id: a%05d}\n", i)
		}
		return writeFile(t, fmt.Sprintf("large-%d.yaml", n), b.String())
	}
	small, large := overlay(n/10), overlay(n)
	// Each load is held to the ids it reads (idReads), not to its time:
	// CPU and wall ratios of loads measured in one run varied from 10x to
	// 66x with the map in place on a loaded machine.
	for _, trusted := range []bool{false, true} {
		for i, repo := range []string{small, large} {
			before := idReads.Load()
			c, _, err := load(t, Sources{Repository: repo, RepositoryTrusted: func(string) bool { return trusted }})
			read := idReads.Load() - before
			if err != nil {
				t.Fatal(err)
			}
			m := n / 10 * (1 + 9*i)
			// The file declares m capabilities, m advisors and one
			// advisor naming every capability: 3m ids, each read a few
			// times (looked up along the list, they were read m times).
			t.Logf("trusted %v: %d entries: %d ids read", trusted, m, read)
			if most := int64(10 * 3 * m); read > most {
				t.Errorf("trusted %v: a load of %d capabilities and %d advisors read %d ids, want at most %d: finding an entry grows with the list", trusted, m, m, read, most)
			} else if read < int64(m) {
				t.Errorf("trusted %v: a load of %d capabilities read %d ids, fewer than it declares: idReads counts nothing", trusted, m, read)
			}
			if !c.HasCapability(fmt.Sprintf("c%05d", m-1)) {
				t.Errorf("trusted %v: the overlay's capabilities were not added", trusted)
			}
			if a, _ := c.Advisor("alpha"); len(a.Capabilities) != m+2 {
				t.Errorf("trusted %v: alpha has %d capabilities, want %d", trusted, len(a.Capabilities), m+2)
			}
			if _, ok := c.Advisor("a00000"); ok != trusted {
				t.Errorf("trusted %v: new advisor declared %v", trusted, ok)
			}
			// The line every command prints of what it ignored names ten
			// entries and counts the rest (it printed 600 KB of a file of
			// 30,000 new advisors).
			if trusted {
				continue
			}
			if n := c.Untrusted.Notice(); len(n) > 1000 || !strings.Contains(n, fmt.Sprintf("new advisor a00009; and %d more, which 'git reason trust --show' lists", m-10)) {
				t.Errorf("the notice of %d ignored entries, %d bytes: %.300s", len(c.Untrusted.Ignored), len(n), n)
			}
		}
	}
}
