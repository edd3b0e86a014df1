package main

import (
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// walkHereEnv, set to 1, makes the in-process walkers (TestNextWalk,
// TestNextWalkRandom) walk in this process, as the child walkAside starts
// does; bench/walker sets it to profile the walks (-test.cpuprofile).
const walkHereEnv = "GIT_REASON_WALK_HERE"

// walkAside lets an in-process walker run beside this package's parallel
// tests. The walkers change this process's working directory and
// environment (t.Chdir, t.Setenv: each command runs through cli.MainNet in
// this process), so they cannot be parallel tests, and a test that is not
// parallel holds back every parallel test of the package until it ends
// (go test runs the top-level tests in order, and releases the parallel
// ones after the last): about a minute of one busy core, with the other
// waiting for the scripts. So the test runs again in a test binary of its
// own (this one, -test.run naming only it, walkHereEnv set), which walks
// in its process exactly as before, while this test is a parallel one
// that waits for it: every walk, command and check is the same.
//
// walkAside returns true where the test is to walk (in the child, or with
// walkHereEnv set); false when the walk ran in the child, whose failure is
// this test's failure, with the child's output.
func walkAside(t *testing.T) bool {
	t.Helper()
	return runAside(t, walkHereEnv)
}

// runAside is walkAside for any test: here names the variable set to 1 in
// the child, and launcher, when given, is the command that starts the
// child (the test binary and its arguments follow it), for a test whose
// child must start in a state this process cannot put it in.
func runAside(t *testing.T, here string, launcher ...string) bool {
	t.Helper()
	if os.Getenv(here) == "1" {
		return true
	}
	t.Parallel()
	run := ""
	if f := flag.Lookup("test.run"); f != nil {
		run = f.Value.String()
	}
	args := []string{"-test.run", asideRun(t.Name(), run), "-test.count=1", "-test.v"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	if f := flag.Lookup("test.timeout"); f != nil {
		args = append(args, "-test.timeout="+f.Value.String())
	}
	argv := append(append(append([]string{}, launcher...), os.Args[0]), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), here+"=1")
	out, err := cmd.CombinedOutput()
	// The child's lines, each behind "| ", so that go test -json does not
	// read its "=== RUN" and "--- PASS" lines as this binary's.
	relayed := "| " + strings.ReplaceAll(strings.TrimRight(string(out), "\n"), "\n", "\n| ")
	switch {
	case err != nil:
		t.Fatalf("%s in a test binary of its own: %v\n%s", t.Name(), err, relayed)
	case !strings.Contains(string(out), "\n--- PASS: "+t.Name()+" "):
		// A child that ran no test passes too: it must have run this one.
		t.Fatalf("%s in a test binary of its own did not run it:\n%s", t.Name(), relayed)
	}
	t.Log("ran in a test binary of its own:\n" + relayed)
	return false
}

// asideRun is the -test.run pattern of the child runAside starts for the
// test name, in a test binary run with the pattern run: name alone, and a
// subtest filter (-run 'TestNextWalk/disagreement') applies in the child
// too. It took everything after the first "/" of run as the filter, other
// tests' alternatives with it: with -run 'TestNextWalk/x|TestOther' the
// child of TestNextWalk ran TestOther too, and a child of
// TestCtrlCStopsAPromptIgnoringSIGINT running TestNextWalk had that start
// a grandchild running TestCtrlCStopsAPromptIgnoringSIGINT with SIGINT at
// its default ("the test binary was to start with SIGINT ignored"). Each
// alternative of run whose first level matches name gives its lower
// levels, behind name anchored; one without lower levels runs every
// subtest.
func asideRun(name, run string) string {
	self := "^" + regexp.QuoteMeta(name) + "$"
	var alts []string
	for _, alt := range splitPattern(run, '|') {
		levels := splitPattern(alt, '/')
		if ok, err := regexp.MatchString(levels[0], name); err != nil || !ok {
			continue
		}
		if len(levels) == 1 {
			return self
		}
		alts = append(alts, self+"/"+strings.Join(levels[1:], "/"))
	}
	if len(alts) == 0 {
		return self
	}
	return strings.Join(alts, "|")
}

// splitPattern cuts a -test.run pattern at each sep ('|' or '/') outside
// brackets and parentheses and not escaped, as package testing does.
func splitPattern(s string, sep byte) []string {
	var parts []string
	brackets, parens, start := 0, 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '[':
			brackets++
		case c == ']':
			brackets = max(brackets-1, 0)
		case c == '(' && brackets == 0:
			parens++
		case c == ')' && brackets == 0:
			parens--
		case c == '\\':
			i++
		case c == sep && brackets == 0 && parens == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// TestAsideRun: the child runAside starts runs its test, with the subtest
// filter -run gave that test, and no other test.
func TestAsideRun(t *testing.T) {
	t.Parallel()
	const walk, ctrlC = "TestNextWalk", "TestCtrlCStopsAPromptIgnoringSIGINT"
	for _, c := range []struct{ name, run, want string }{
		{walk, "", "^TestNextWalk$"},
		{walk, walk + "$", "^TestNextWalk$"},
		{walk, walk + "/disagreement", "^TestNextWalk$/disagreement"},
		{walk, ctrlC + "|" + walk + "$", "^TestNextWalk$"},
		{walk, walk + "/x|" + ctrlC, "^TestNextWalk$/x"},
		{ctrlC, walk + "/x|" + ctrlC, "^" + ctrlC + "$"},
		{ctrlC, ctrlC + "/x|" + walk + "$|" + ctrlC, "^" + ctrlC + "$"},
		{walk, walk + "/a|TestNext/b/c", "^TestNextWalk$/a|^TestNextWalk$/b/c"},
		{walk, "(" + walk + "|TestOther)/a[/|]b", "^TestNextWalk$/a[/|]b"},
		{walk, `TestNextWalk/a\|b`, `^TestNextWalk$/a\|b`},
	} {
		if got := asideRun(c.name, c.run); got != c.want {
			t.Errorf("asideRun(%q, %q) = %q, want %q", c.name, c.run, got, c.want)
		}
	}
}
