package neutrality

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unicode"
)

var testTerms = []Term{
	{"Acme Cloud", "vendor acme"},
	{"Zeta", "provider zeta"},
	{"ace", "advisor ace"},
	{"Gem", "advisor gem"},
	{"x-1.5-pro", "model of vendor acme"},
}

// found renders matches as "line:col:text=name" for compact expectations.
func found(ms []Match) string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%d:%d:%s=%s", m.Line, m.Col, m.Text, m.Term.Name))
	}
	return strings.Join(out, " ")
}

func TestMatcherSpellings(t *testing.T) {
	m, err := NewMatcher(testTerms)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rule, text, want string
	}{
		// Every spelling of a multi-word name.
		{"snake_case", "acme_cloud_client", "1:1:acme_cloud=Acme Cloud"},
		{"PascalCase", "AcmeCloudClient", "1:1:AcmeCloud=Acme Cloud"},
		{"camelCase inside", "newAcmeCloudClient()", "1:4:AcmeCloud=Acme Cloud"},
		{"SCREAMING_SNAKE", "ACME_CLOUD = 1", "1:1:ACME_CLOUD=Acme Cloud"},
		{"kebab-case", `"acme-cloud"`, "1:2:acme-cloud=Acme Cloud"},
		{"words", "runs on Acme Cloud.", "1:9:Acme Cloud=Acme Cloud"},
		{"dotted", "api.acme.cloud", "1:5:acme.cloud=Acme Cloud"},
		{"joined lower", "acmecloud", "1:1:acmecloud=Acme Cloud"},
		{"acronym then word", "ACMECloudClient", "1:1:ACMECloud=Acme Cloud"},
		{"tab between words", "acme\tcloud", "1:1:acme\tcloud=Acme Cloud"},
		{"joined words count as one name", "a_ce", "1:1:a_ce=ace"},
		{"unicode punctuation separates", "Acme Cloud—the host", "1:1:Acme Cloud=Acme Cloud"},
		{"byte order mark", "\ufeffzeta", "1:4:zeta=Zeta"},
		// One-word names.
		{"lower", "zeta", "1:1:zeta=Zeta"},
		{"upper", "ZETA_TOKEN", "1:1:ZETA=Zeta"},
		{"camel prefix", "zetaClient", "1:1:zeta=Zeta"},
		{"camel suffix", "newZeta", "1:4:Zeta=Zeta"},
		{"digit boundary", "zeta2", "1:1:zeta=Zeta"},
		{"short name as a word", "if ace {", "1:4:ace=ace"},
		{"short name in camelCase", "useAce", "1:4:Ace=ace"},
		// Names with digits and dots.
		{"model as declared", "x-1.5-pro", "1:1:x-1.5-pro=x-1.5-pro"},
		{"model snake", "X_1_5_PRO", "1:1:X_1_5_PRO=x-1.5-pro"},
		{"model camel", "useX15Pro()", "1:4:X15Pro=x-1.5-pro"},
		{"model mixed", "x1.5-pro", "1:1:x1.5-pro=x-1.5-pro"},
		{"model variant", "x-1.5-pro-max", "1:1:x-1.5-pro=x-1.5-pro"},
		// Positions.
		{"two on a line", "zeta, then acme cloud", "1:1:zeta=Zeta 1:12:acme cloud=Acme Cloud"},
		{"second line", "package main\n\tzeta()", "2:2:zeta=Zeta"},
		{"crlf lines", "a\r\nb zeta", "2:3:zeta=Zeta"},
		// What must not fire.
		{"inside a word", "surface acetone replaceable", ""},
		{"prefix of a word", "Gemfile gemstone", ""},
		{"plural", "zetas", ""},
		{"longer last word", "acme_clouds", ""},
		{"first word alone", "acme", ""},
		{"two separators", "acme__cloud acme - cloud", ""},
		{"other separator", "acme/cloud acme,cloud acme:cloud", ""},
		{"across lines", "acme\ncloud", ""},
		{"other version", "x-1.50-pro x-1.5 x-15-pro-ultra2", "1:18:x-15-pro=x-1.5-pro"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			if got := found(m.Find([]byte(tt.text))); got != tt.want {
				t.Errorf("Find(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// findCase is a text and what a matcher finds in it, as found renders it.
type findCase struct{ text, want string }

// expectFinds holds what a matcher of terms finds in each case's text.
func expectFinds(t *testing.T, terms []Term, cases []findCase) {
	t.Helper()
	m, err := NewMatcher(terms)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if got := found(m.Find([]byte(c.text))); got != c.want {
			t.Errorf("Find(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestMatcherLongestTermWins(t *testing.T) {
	expectFinds(t, []Term{{"Acme", "vendor acme"}, {"Acme Cloud", "provider acme-cloud"}, {"Cloud", "advisor cloud"}}, []findCase{
		{"acme_cloud", "1:1:acme_cloud=Acme Cloud"},
		{"acme_cluster", "1:1:acme=Acme"},
		{"AcmeCloudCloud", "1:1:AcmeCloud=Acme Cloud 1:10:Cloud=Cloud"},
	})
}

// TestMatcherWordBoundaries holds where words start and end inside an
// identifier: a run of capitals before a capitalised word is a word of its
// own, and a run of digits is one word.
func TestMatcherWordBoundaries(t *testing.T) {
	expectFinds(t, []Term{{"Zeta", "provider zeta"}, {"Tessaro 3", "model of vendor pyxis"}}, []findCase{
		{"HTTPZetaClient", "1:5:Zeta=Zeta"},
		{"HTTPZETAClient", ""},
		{"tessaro3", "1:1:tessaro3=Tessaro 3"},
		{"Tessaro-3-mini", "1:1:Tessaro-3=Tessaro 3"},
		{"tessaro33 tessaro3b", "1:11:tessaro3=Tessaro 3"},
		{"TESSARO_30", ""},
		{"v13zeta", "1:4:zeta=Zeta"},
	})
}

func TestMatcherNonASCII(t *testing.T) {
	// Non-ASCII letters belong to words, without case folding; other
	// non-ASCII characters and invalid bytes separate words.
	expectFinds(t, []Term{{"Zéta", "vendor zeta"}}, []findCase{
		{"zéta_client", "1:1:zéta=Zéta"},
		{"ZÉTA", ""},
		{"zétas", ""},
		{"naïveZéta", "1:7:Zéta=Zéta"},
		{"«zéta»", "1:3:zéta=Zéta"},
		{"\ufeffzéta", "1:4:zéta=Zéta"},
		{"Zéta—the one", "1:1:Zéta=Zéta"},
		{"\xffzéta\xfe", "1:2:zéta=Zéta"},
	})
}

func TestNewMatcherMergesEqualNames(t *testing.T) {
	m, err := NewMatcher([]Term{
		{"Acme Cloud", "vendor acme"}, {"acme-cloud", "advisor acme-cloud"}, {"ACME_CLOUD", "vendor acme"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := m.Find([]byte("acme cloud, ACME-CLOUD"))
	want := Term{"Acme Cloud", "vendor acme; advisor acme-cloud"}
	if len(got) != 2 || got[0].Term != want || got[1].Term != want {
		t.Errorf("Find = %+v, want two matches of %v", got, want)
	}
}

// A repository's .reason/neutrality.yaml is a stranger's file (1 MiB at
// most), and its terms feed the check that doctor and the hooks run. The
// trie held a row of every byte the terms use for each of its nodes:
// 70,000 terms of four letters of several scripts (200 distinct bytes,
// 700,000 nodes) made check neutrality use 1.2 GB. Its edges now take
// memory in proportion to the terms' bytes.
func TestNewMatcherMemoryFollowsTheTerms(t *testing.T) {
	var letters []rune
	for _, span := range [][2]rune{{'a', 'z'}, {'0', '9'}, {0xc0, 0x52f}, {0x4e00, 0x4fff}} {
		for r := span[0]; r <= span[1]; r++ {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				letters = append(letters, r)
			}
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	terms := make([]Term, 20000)
	for i := range terms {
		var name []rune
		for range 4 {
			name = append(name, letters[rnd.IntN(len(letters))])
		}
		terms[i] = Term{string(name), "terms in .reason/neutrality.yaml"}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := NewMatcher(terms)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("NewMatcher of %d terms of 4 letters allocated %d MB", len(terms), alloc>>20)
	}
	for _, i := range []int{0, 7, len(terms) - 1} {
		text := "x " + strings.ToUpper(terms[i].Name) + " " + terms[i].Name + " y"
		if got := m.Find([]byte(text)); len(got) == 0 || got[len(got)-1].Text != terms[i].Name {
			t.Errorf("Find(%q) = %+v, want %q found", text, got, terms[i].Name)
		}
	}
}

func TestNewMatcherRejectsNameWithoutWords(t *testing.T) {
	_, err := NewMatcher([]Term{{"Zeta", "vendor zeta"}, {"--", "vendor dash"}})
	if err == nil || !strings.Contains(err.Error(), `term "--" (declared as vendor dash) has no letter or digit`) {
		t.Errorf("NewMatcher error = %v, want one naming the term", err)
	}
}

func TestKey(t *testing.T) {
	for name, want := range map[string]string{
		"Acme Cloud":  "acmecloud",
		"x-1.5-pro":   "x15pro",
		"ACMECloud":   "acmecloud",
		"  ":          "",
		"Zeta (beta)": "zetabeta",
	} {
		if got := key(name); got != want {
			t.Errorf("key(%q) = %q, want %q", name, got, want)
		}
	}
}
