package advisor

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestIndirectFiles holds what trust covers that no word of a command
// names: what a task runner's files name (a Makefile's recipes and
// includes, package.json's scripts, a Rakefile's code), and the modules
// beside the script an interpreter runs; and what it says it does not.
func TestIndirectFiles(t *testing.T) {
	top := t.TempDir()
	for f, body := range map[string]string{
		"Makefile":        "include mk/rules.mk\n-include mk/missing.mk\nSCRIPT := tools/var.sh\nreview:\n\t@sh tools/review.sh\n\trm -rf big\n",
		"mk/rules.mk":     "include mk/loop.mk\nextra:\n\t-python3 py/x.py\n",
		"mk/loop.mk":      "include mk/rules.mk\n",
		"tools/review.sh": "exit 1", "tools/var.sh": "exit 1", "big/a": "",
		"py/x.py": "import helper", "py/helper.py": "", "py/__pycache__/helper.pyc": "",
		"package.json": `{"scripts": {"review": "node js/r.js", "lint": "sh tools/review.sh"}, "main": "js/unnamed.js"}`,
		"js/r.js":      "require('./util')", "js/util.js": "",
		"Rakefile": `task(:review) { sh "tools/rake.sh" }`, "tools/rake.sh": "",
		"top.py": "import tophelp", "tophelp.py": "", "pkg/__init__.py": "", "data/a.py": "", "README": "",
	} {
		writeAt(t, filepath.Join(top, f), body)
	}
	for _, c := range []struct {
		argv  []string
		want  []string // path (via)
		notes []string // path: note, as it starts
	}{
		{[]string{"make", "-s", "review"},
			[]string{"Makefile ()", "mk/rules.mk (named by Makefile)", "mk/loop.mk (named by mk/rules.mk)", "py/x.py (named by mk/rules.mk)",
				"py/ (beside py/x.py, which python3 runs)", "tools/var.sh (named by Makefile)", "tools/review.sh (named by Makefile)"},
			[]string{"Makefile: trust covers the work-tree files its recipes' words name", "mk/rules.mk: trust covers", "mk/loop.mk: trust covers", "py/: the modules python3 finds elsewhere"}},
		{[]string{"npm", "run", "review"},
			[]string{"package.json ()", "tools/review.sh (named by package.json)", "js/r.js (named by package.json)", "js/ (beside js/r.js, which node runs)"},
			[]string{"package.json: trust covers", "js/: the modules node finds elsewhere"}},
		{[]string{"rake", "review"}, []string{"Rakefile ()", "tools/rake.sh (named by Rakefile)"}, []string{"Rakefile: trust covers"}},
		{[]string{"python3", "-u", "top.py"}, []string{"top.py ()", "pkg/ (beside top.py, which python3 runs)", "tophelp.py (beside top.py, which python3 runs)"},
			[]string{"top.py: it is in the work tree's top: trust covers the .py files there beside it and its packages"}},
		{[]string{"./py/x.py"}, []string{"py/x.py ()", "py/ (beside py/x.py, which its interpreter runs)"}, []string{"py/: the modules its interpreter finds"}},
		// Code given on the command line is no script: codeNames covers its words.
		{[]string{"python3", "-c", "import helper", "top.py"}, []string{"top.py ()"}, nil},
	} {
		var got, notes []string
		for _, f := range newCoverer(top).files("a", c.argv) {
			got = append(got, f.Path+" ("+f.Via+")")
			if f.Note != "" {
				notes = append(notes, f.Path+": "+f.Note)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: covered\n %q\nwant\n %q", c.argv, got, c.want)
		}
		if len(notes) != len(c.notes) || slices.ContainsFunc(c.notes, func(w string) bool {
			return !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, w) })
		}) {
			t.Errorf("%q: notes %q, want them to start %q", c.argv, notes, c.notes)
		}
	}
	// The directory of a script is covered without Python's bytecode,
	// which it writes as it runs (the advisor runs with it elsewhere).
	if f := newCoverer(top).files("a", []string{"python3", "py/x.py"}); len(f) != 2 || f[1].Path != "py/" ||
		f[1].SHA256 != Sum([]byte(`"helper.py" `+Sum(nil)+"\n"+`"x.py" `+Sum([]byte("import helper"))+"\n")) {
		t.Errorf("py/: %+v", f)
	}
	// A second advisor naming the Makefile is checked against what it
	// runs too (coveredChange reads its Covered).
	c := newCoverer(top)
	c.files("a", []string{"make"})
	c.files("b", []string{"make", "extra"})
	if !slices.ContainsFunc(c.named["b"], func(f CoveredFile) bool { return f.Path == "tools/review.sh" }) {
		t.Errorf("advisor b's files %+v lack what the Makefile runs", c.named["b"])
	}
	// What no word of the command names and trust cannot cover (a
	// virtualenv's bin/ of symbolic links beside a script, a symbolic
	// link a recipe names) is not listed, which would make trust
	// impossible, but said; a command naming it lists it.
	writeAt(t, filepath.Join(top, "venv", "tool"), "")
	if err := os.Symlink("/usr/bin/python3", filepath.Join(top, "venv", "python")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/bin/sh", filepath.Join(top, "link.sh")); err != nil {
		t.Fatal(err)
	}
	writeAt(t, filepath.Join(top, "justfile"), "review:\n    sh link.sh\n")
	c = newCoverer(top)
	got := c.files("a", []string{"python3", "venv/tool"})
	got = append(got, c.files("b", []string{"just", "review"})...)
	if len(got) != 2 || got[0].Path != "venv/tool" || got[1].Path != "justfile" ||
		!strings.Contains(got[0].Note, "venv/ holds python, which is not a regular file (a symbolic link, FIFO, device or socket): trust does not cover it") ||
		!strings.Contains(got[1].Note, "link.sh is a symbolic link or lies under one: trust does not cover it") {
		t.Errorf("files trust cannot cover: %+v", got)
	}
	if again := c.files("c", []string{"sh", "venv", "link.sh"}); len(again) != 2 || again[0].Problem == "" || again[1].Problem == "" {
		t.Errorf("named by a command, they are listed with their problem: %+v", again)
	}
	// With no trust recorded no runner's file is read (TestNoTrustRecordedReadsNoFile).
	c = newCoverer(top)
	c.stat = true
	if f := c.files("a", []string{"make"}); len(f) != 1 || c.read != 0 {
		t.Errorf("stat only: %+v, %d runners' files read", f, c.read)
	}
}

// A stranger's Makefile of a megabyte of words that name files, which
// includes itself and many more, named by hundreds of advisors, is read
// once, and followed for a bounded number of names, all advisors
// together; trust says the rest is not covered.
func TestIndirectFilesBounded(t *testing.T) {
	top := t.TempDir()
	var mk strings.Builder
	mk.WriteString("include Makefile Makefile " + strings.Repeat("x.mk ", 100) + "\n")
	for i := range 40 {
		fmt.Fprintf(&mk, "include m%d.mk\n", i)
		writeAt(t, filepath.Join(top, fmt.Sprintf("m%d.mk", i)), "include Makefile m0.mk\n\tsh f/1\n")
	}
	for mk.Len() < maxRunnerBytes-100 {
		mk.WriteString("\tsh f/1 f/2 f/3 f/4 f/5 f/6 f/7 f/8 python3 f/1 node f/2\n")
	}
	writeAt(t, filepath.Join(top, "Makefile"), mk.String())
	writeAt(t, filepath.Join(top, "x.mk"), "")
	for i := range 8 {
		writeAt(t, filepath.Join(top, "f", fmt.Sprint(i+1)), "")
	}
	c := newCoverer(top)
	var files []CoveredFile
	for i := range 300 {
		files = append(files, c.files(fmt.Sprint(i), []string{"make", "r"})...)
	}
	t.Logf("%d names looked for, %d runners' files read, %d files", c.looked, c.read, len(files))
	if most := maxIndirectNames + 300*30; c.looked > most {
		t.Errorf("%d names looked for, want at most %d", c.looked, most)
	}
	if c.read > maxRunnerFiles {
		t.Errorf("%d runners' files read, want at most %d", c.read, maxRunnerFiles)
	}
	if len(files) > 60 {
		t.Errorf("%d files listed: %+v", len(files), files)
	}
	notes := strings.Join(c.notes["Makefile"], "; ")
	if !strings.Contains(notes, "what it runs past them is not covered") {
		t.Errorf("Makefile's notes %q do not say what is not followed", notes)
	}
	if !slices.ContainsFunc(files, func(f CoveredFile) bool {
		return strings.Contains(strings.Join(c.notes[f.Path], ""), "reads at most 16 runners' files")
	}) {
		t.Errorf("no file says the runners' files past %d are not read", maxRunnerFiles)
	}
}
