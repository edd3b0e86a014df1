package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

type term struct{ name string }

// terms are made-up names, long and short, one word and several, with
// digits and dots.
var terms = []term{
	{"Acme Cloud"},
	{"Zeta"},
	{"Orbix"},
	{"Nimbus Labs"},
	{"x-1.5-pro"},
	{"Quillon"},
	{"Vantor Mind"},
	{"Heliox"},
	{"Brontide"},
	{"Kestrel Nine"},
	{"Lumora"},
	{"Pyxis Systems"},
	{"ace"},
	{"Corvane"},
	{"Tessaro 3"},
	{"Umbrel"},
}

// spellings turn a name's words into one spelling of an identifier or text.
var spellings = []func(words []string) string{
	func(w []string) string { return strings.Join(w, "_") },                  // snake_case
	func(w []string) string { return strings.ToUpper(strings.Join(w, "_")) }, // SCREAMING
	func(w []string) string { return strings.Join(w, "-") },                  // kebab-case
	func(w []string) string { return strings.Join(title(w), "") },            // PascalCase
	func(w []string) string { return w[0] + strings.Join(title(w[1:]), "") }, // camelCase
	func(w []string) string { return strings.Join(title(w), " ") },           // words
}

func title(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return out
}

// vocabulary is what ordinary lines are made of.
var vocabulary = strings.Fields(`request response handler config value index buffer reader writer
	context error result status record store commit tree blob path name count total limit offset
	client server token session cache queue worker pool batch stream event signal timer clock
	parse render format encode decode marshal validate compute update delete insert select
	user account project module package import export report metric sample window frame`)

// nearMisses hold a short name ("ace") inside a longer word: the engine must
// not report them, and git grep, which cannot tell, matches every line
// holding one.
var nearMisses = strings.Fields(`surface replaceable acetone trace space place face grace
	lacework workspace interface`)

// treeInfo is what generate made.
type treeInfo struct {
	planted int
	bytes   int
}

// generate writes files source-like files under root/src, 100 to a
// directory, with a neutrality configuration that makes src/ neutral.
// About one file in eight gets a planted name in a chosen spelling, alone
// on its line so that it is exactly one violation.
// With nearMiss, ordinary lines also use words holding "ace".
func generate(root string, files int, nearMiss bool) (treeInfo, error) {
	var info treeInfo
	words := vocabulary
	if nearMiss {
		words = append(slices.Clone(vocabulary), nearMisses...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	write := func(rel, content string) error {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		info.bytes += len(content)
		return os.WriteFile(p, []byte(content), 0o644)
	}
	// The names are the configuration's extra terms, so that the command
	// looks for them as it would for declared ones.
	var cfg strings.Builder
	cfg.WriteString("neutral: [\"src/**\"]\nterms:\n")
	for _, t := range terms {
		fmt.Fprintf(&cfg, "  - %q\n", t.name)
	}
	if err := write(".reason/neutrality.yaml", cfg.String()); err != nil {
		return info, err
	}
	var b strings.Builder
	for i := range files {
		b.Reset()
		fmt.Fprintf(&b, "package p%d\n\n", i/100)
		lines := 40 + rng.IntN(80)
		plant := -1
		if rng.IntN(8) == 0 {
			plant = rng.IntN(lines)
		}
		for l := range lines {
			if l == plant {
				t := terms[rng.IntN(len(terms))]
				words := strings.Fields(strings.NewReplacer("-", " ", ".", " ").Replace(strings.ToLower(t.name)))
				fmt.Fprintf(&b, "\tuse(%s) // planted\n", spellings[rng.IntN(len(spellings))](words))
				info.planted++
				continue
			}
			line(&b, rng, words)
		}
		if err := write(fmt.Sprintf("src/d%03d/f%05d.go", i/100, i), b.String()); err != nil {
			return info, err
		}
	}
	return info, nil
}

// line writes one ordinary line of code.
func line(b *strings.Builder, rng *rand.Rand, words []string) {
	w := func() string { return words[rng.IntN(len(words))] }
	switch rng.IntN(5) {
	case 0:
		fmt.Fprintf(b, "\t%s%s := %s.%s(%s, %d)\n", w(), strings.Join(title([]string{w()}), ""), w(), strings.Join(title([]string{w(), w()}), ""), w(), rng.IntN(1000))
	case 1:
		fmt.Fprintf(b, "\t// %s the %s %s before the %s %s.\n", w(), w(), w(), w(), w())
	case 2:
		fmt.Fprintf(b, "\tif err := %s_%s(%s); err != nil {\n\t\treturn fmt.Errorf(\"%s %s: %%w\", err)\n\t}\n", w(), w(), w(), w(), w())
	case 3:
		fmt.Fprintf(b, "\tconst %s_%s = %q\n", strings.ToUpper(w()), strings.ToUpper(w()), w()+"-"+w())
	default:
		fmt.Fprintf(b, "\t%s.%s = append(%s.%s, %s)\n", w(), title([]string{w()})[0], w(), title([]string{w()})[0], w())
	}
}
