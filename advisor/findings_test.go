package advisor

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func codes(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	sort.Strings(out)
	return out
}

func TestFixtureBaseIsClean(t *testing.T) {
	_, findings, err := load(t, Sources{})
	if err != nil || len(findings) != 0 {
		t.Fatalf("err %v, findings %v", err, findings)
	}
}

// Each overlay introduces one kind of problem; the load succeeds and the
// findings name it.
func TestFindings(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string
		subject    string
		line       int // line of the overlay the finding points at; 0: not checked
	}{
		{"unresolved provider", "advisors:\n  - id: alpha\n    provider: nobody\n", []string{CodeUnresolvedProvider}, "advisor alpha", 2},
		{"unresolved vendor", "advisors:\n  - id: alpha\n    vendor: nobody\n", []string{CodeUnresolvedVendor}, "advisor alpha", 2},
		{"model of another vendor", "vendors:\n  - id: other\n    models: [{id: other-1}]\nadvisors:\n  - id: alpha\n    model: other-1\n", []string{CodeUnresolvedModel}, "advisor alpha", 5},
		{"model without vendor", "advisors:\n  - id: new\n    transport: peer\n    adapter: peer\n    base_url: https://p.invalid\n    model: fix-large\n", []string{CodeUnresolvedModel}, "advisor new", 2},
		{"unknown capability", "advisors:\n  - id: bravo\n    capabilities: [reasoning, telepathy]\n", []string{CodeUnknownCapability}, "advisor bravo", 2},
		{"duplicate id in one file", "advisors:\n  - id: alpha\n    cooldown: 1m\n  - id: alpha\n    cooldown: 2m\n", []string{CodeDuplicateID}, "advisor alpha", 4},
		{"duplicate provider id", "providers:\n  - id: p\n  - id: p\n", []string{CodeDuplicateID}, "provider p", 3},
		{"duplicate model", "vendors:\n  - id: fixvendor\n    models: [{id: fix-large}, {id: fix-small}, {id: fix-large}]\n", []string{CodeDuplicateModel}, "vendor fixvendor", 2},
		{"transport without adapter", "advisors:\n  - id: new\n    transport: peer\n    base_url: https://p.invalid\n", []string{CodeMissingAdapter}, "advisor new", 2},
		{"no transport", "advisors:\n  - id: new\n    adapter: peer\n", []string{CodeUnknownTransport}, "advisor new", 2},
		{"unknown transport", "advisors:\n  - id: alpha\n    transport: carrier_pigeon\n", []string{CodeUnknownTransport}, "advisor alpha", 2},
		{"adapter wrong for transport", "advisors:\n  - id: bravo\n    adapter: messages\n", []string{CodeInvalidAdapter}, "advisor bravo", 2},
		{"api without base_url and credential", "advisors:\n  - id: new\n    transport: api\n    adapter: messages\n", []string{CodeMissingBaseURL, CodeMissingCredential}, "advisor new", 2},
		{"cli without executable and command", "advisors:\n  - id: new\n    transport: cli\n    adapter: exec\n", []string{CodeMissingCommand, CodeMissingExecutable}, "advisor new", 2},
		{"local runtime off loopback and not local", "advisors:\n  - id: charlie\n    base_url: http://10.0.0.5:9999/v1\n    local: false\n", []string{CodeNotLocal, CodeNotLoopback}, "advisor charlie", 2},
		{"loopback name spoofed", "advisors:\n  - id: charlie\n    base_url: http://127.0.0.1.example.invalid/v1\n", []string{CodeNotLoopback}, "advisor charlie", 2},
		{"command runs another executable", "advisors:\n  - id: bravo\n    command: [other-cli]\n", []string{CodeCommandMismatch}, "advisor bravo", 2},
		{"profile with a bad mode", "profiles:\n  - id: fast\n    mode: turbo\n", []string{CodeBadMode}, "profile fast", 2},
		{"order names an unknown advisor", "order: [zulu, alpha]\n", []string{CodeUnknownOrderID}, "advisor zulu", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, "advisors.yaml", tc.yaml)
			_, findings, err := load(t, Sources{Repository: file})
			if err != nil {
				t.Fatal(err)
			}
			if got := codes(findings); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("codes = %v, want %v (%v)", got, tc.want, findings)
			}
			f := findings[0]
			if f.Subject != tc.subject {
				t.Errorf("subject = %q, want %q", f.Subject, tc.subject)
			}
			if tc.line != 0 && f.Where != file+":"+strconv.Itoa(tc.line) {
				t.Errorf("where = %q, want %s:%d", f.Where, file, tc.line)
			}
			if f.Message == "" || !strings.HasPrefix(f.String(), f.Where+": ") {
				t.Errorf("rendered %q", f.String())
			}
		})
	}
}

// A duplicate is reported and ignored: the first entry stands.
func TestDuplicateKeepsFirst(t *testing.T) {
	c, _, err := load(t, Sources{Repository: writeFile(t, "a.yaml", "advisors:\n  - id: alpha\n    cooldown: 1m\n  - id: alpha\n    cooldown: 2m\n")})
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := c.Advisor("alpha"); a.Cooldown.String() != "1m0s" {
		t.Errorf("cooldown = %s, want the first entry's 1m", a.Cooldown)
	}
}

func TestMissingProfiles(t *testing.T) {
	base := fixtureBase()
	base["profiles.yaml"].Data = []byte("profiles:\n  - id: offline\n    mode: offline\n")
	_, findings, err := load(t, Sources{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	if got := codes(findings); !reflect.DeepEqual(got, []string{CodeMissingProfile, CodeMissingProfile}) {
		t.Errorf("codes = %v, want default and ci missing", got)
	}
	for _, f := range findings {
		if f.Severity != SeverityError {
			t.Errorf("%s: a missing profile is no error", f)
		}
	}
}

func TestCheckDisabled(t *testing.T) {
	c, _, err := load(t, Sources{})
	if err != nil {
		t.Fatal(err)
	}
	got := CheckDisabled(c, []string{"alpha", "alpah"})
	if len(got) != 1 || got[0].Code != CodeUnknownDisabled || got[0].Subject != "advisor alpah" || got[0].Severity != SeverityWarning {
		t.Fatalf("got %v", got)
	}
}

func TestNames(t *testing.T) {
	c, _, err := load(t, Sources{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, n := range c.Names() {
		if _, dup := got[n.Name]; dup {
			t.Errorf("name %q listed twice", n.Name)
		}
		got[n.Name] = n.DeclaredAs
	}
	want := map[string]string{
		"alpha": "advisor alpha", "bravo-cli": "executable of advisor bravo",
		"fix_gateway": "provider fix_gateway", "Fixture Gateway": "name of provider fix_gateway",
		"fixvendor": "vendor fixvendor", "Fixture Vendor": "name of vendor fixvendor",
		"fix-small": "model fix-small of vendor fixvendor",
	}
	for name, as := range want {
		if got[name] != as {
			t.Errorf("name %q declared as %q, want %q", name, got[name], as)
		}
	}
}
