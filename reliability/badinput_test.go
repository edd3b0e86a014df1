package reliability

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"git-reason/reliability/harness"
)

// TestBadInput runs every row of badInputCases against the real binary in
// a prepared repository. For every row: the exit status the row names (2
// bad input, 3 refused by a rule); stderr exactly one line "git reason:
// ..." matching the row (schema errors may list their violations on the
// lines after it, each indented by two spaces, where the row allows it) and
// holding no control character; stdout empty (or, for a neutrality check,
// exactly the findings the row names); every ref as before (git for-each-ref); no object
// written; no lock left; and the run within its time bound.
func TestBadInput(t *testing.T) {
	harness.SkipShort(t, "runs the binary for every row of the table")
	s, ids := badPrepare(t)
	cases := badInputCases()
	if len(cases) < 60 {
		t.Fatalf("the table has %d rows; the suite asks for at least 60", len(cases))
	}
	baseRefs := s.git("for-each-ref")
	baseObjs := s.objects()
	var passed, skipped, failed, restored int
	byCode := map[int]int{}
	for i, c := range cases {
		var changedRefs bool
		t.Run(fmt.Sprintf("%03d %s", i+1, c.name), func(t *testing.T) {
			problems := runBadCase(t, s, ids, c, baseRefs, baseObjs, &changedRefs)
			switch {
			case len(problems) > 0 && c.bug != "":
				skipped++
				t.Skipf("BUG: %s\n  got: %s", c.bug, strings.Join(problems, "\n  got: "))
			case len(problems) > 0:
				failed++
				for _, p := range problems {
					t.Error(p)
				}
			default:
				passed++
				byCode[c.code]++
				if c.bug != "" {
					t.Logf("the bug this row marks no longer reproduces; remove its mark: %s", c.bug)
				}
			}
		})
		if changedRefs {
			restored++
			s.restoreRefs(baseRefs)
			baseObjs = s.objects()
		}
	}
	t.Logf("%d rows: %d passed (%d exit 2, %d exit 3), %d failed, %d skipped as known bugs; refs restored after %d rows that moved them",
		len(cases), passed, byCode[2], byCode[3], failed, skipped, restored)

	// HEAD matches the task pattern and is a task like any other: it lives
	// at refs/reasoning/tasks/HEAD and leaves the repository's HEAD alone.
	t.Run("HEAD is a task name", func(t *testing.T) {
		head, sym := s.git("rev-parse", "HEAD"), s.git("symbolic-ref", "HEAD")
		r := s.reason(minor("HEAD")...)
		t.Logf("git reason assess HEAD ...: exit %d: %s", r.code, firstLine(r.stdout+r.stderr))
		if r.code != 0 {
			t.Fatalf("assess HEAD: exit %d: %s", r.code, r.stderr)
		}
		if got := s.run(context.Background(), nil, "git", "rev-parse", "--verify", "-q", taskRef("HEAD")); got.code != 0 {
			t.Errorf("refs/reasoning/tasks/HEAD does not exist after assess HEAD")
		}
		if got := s.git("rev-parse", "HEAD"); got != head {
			t.Errorf("HEAD moved from %s to %s", head, got)
		}
		if got := s.git("symbolic-ref", "HEAD"); got != sym {
			t.Errorf("HEAD now points at %s, was %s", got, sym)
		}
	})

	// A command line refused for itself alone (a flag's value, a --jq
	// expression, the arguments' shape) is refused before the command
	// catches up on what a plain git fetch brought: nothing under
	// .git/reason created or changed, no ref moved, though the catch-up
	// has a task to integrate, as the status at the end shows.
	t.Run("refused before the catch-up", func(t *testing.T) {
		other := filepath.Join(filepath.Dir(s.dir), "other")
		s.git("clone", "-q", s.dir, other)
		o := &sandbox{t: t, dir: other, home: s.home, env: s.env}
		o.recordID(minor("F")...)
		s.git("remote", "add", "origin", other)
		s.git("config", "--add", "remote.origin.fetch", "+refs/reasoning/tasks/*:refs/reasoning/remotes/origin/*")
		s.git("fetch", "-q", "origin")
		saved := s.reasonFiles()
		refs, files := s.git("for-each-ref"), reasonListing(saved)
		long := strings.Repeat("x", 201)
		for _, args := range [][]string{
			{"status", "--jq", ".["},
			{"log", "T", "--jq", "{"},
			{"tasks", "--jq", ".[] |"},
			{"show", ids.Replace("${A}"), "--jq", "..."},
			assessWith("X", "--materiality", "huge"),
			assessWith("X", "--subject", long),
			minor("X", "--evidence", "wat:x:y"),
			minor("X", "--evidence", "wat"),
			minor("X", "--needs", "Not A Capability"),
			minor("X", "--jq", "."+long+"("),
			{"validate", "T", "--manual", "maybe", "--evidence", "note::x"},
			{"attempt", "T", "--outcome", "weird"},
			{"close", "T", "--outcome", "meh"},
			{"conclude", "N", "--decision", "d", "--weigh", "no-treatment"},
			{"conclude", "N", "--decision", "d", "--local-review", "no-answer"},
			{"conclude", "N", "--decision", long + long + long + long + long + long + long + long + long + long + long + long + long + long + long + long + long + long + long + long},
			{"status", "T", "extra"},
			{"status", "--report"},
			{"handover", "--format", "bogus"},
		} {
			r := s.reason(args...)
			t.Logf("git reason %s: exit %d: %s", shorten(strings.Join(args, " "), 120), r.code, firstLine(r.stderr))
			if r.code != 2 {
				t.Errorf("git reason %s: exit %d, want 2", shorten(strings.Join(args, " "), 120), r.code)
			}
			if strings.Contains(r.stderr, "integrated reasoning") {
				t.Errorf("git reason %s: caught up before refusing: %s", shorten(strings.Join(args, " "), 120), shorten(r.stderr, 300))
			}
			if got := s.git("for-each-ref"); got != refs {
				t.Errorf("git reason %s: refs changed:\n%s", shorten(strings.Join(args, " "), 120), lineDiff(refs, got))
				s.restoreRefs(refs)
			}
			if got := reasonListing(s.reasonFiles()); got != files {
				t.Errorf("git reason %s: .git/reason changed:\n%s", shorten(strings.Join(args, " "), 120), lineDiff(files, got))
				s.restoreReasonFiles(saved)
			}
		}
		// The catch-up had its work all along.
		if r := s.reason("status"); r.code != 0 || !strings.Contains(r.stderr, "integrated reasoning fetched from origin: F created") {
			t.Errorf("status after the refusals: exit %d, stderr %q: want F integrated", r.code, shorten(r.stderr, 300))
		}
	})
}

// reasonListing is reasonFiles as lines, each a file's name and the
// digest of its content, sorted.
func reasonListing(files map[string][]byte) string {
	var out []string
	for name, data := range files {
		out = append(out, fmt.Sprintf("%s %x", name, sha256.Sum256(data)))
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// restoreReasonFiles puts .git/reason back as saved (reasonFiles), so
// that the next row meets the catch-up's work again.
func (s *sandbox) restoreReasonFiles(saved map[string][]byte) {
	s.t.Helper()
	dir := filepath.Join(s.gitDir(), "reason")
	if err := os.RemoveAll(dir); err != nil {
		s.t.Fatal(err)
	}
	for name, data := range saved {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
}

// runBadCase runs one row and returns what went wrong with it.
func runBadCase(t *testing.T, s *sandbox, ids *strings.Replacer, c badCase, baseRefs, baseObjs string, changedRefs *bool) []string {
	for name, content := range c.files {
		path := s.filePath(name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(ids.Replace(content)), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
	}
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = ids.Replace(a)
	}
	within := c.within
	if within == 0 {
		within = badDefaultWithin
	}
	ctx, cancel := context.WithTimeout(context.Background(), within+time.Second)
	defer cancel()
	var stdin []byte
	if c.stdin != "" {
		stdin = []byte(c.stdin)
	}
	r := s.run(ctx, stdin, "git", append([]string{"reason"}, args...)...)
	t.Logf("git reason %s: exit %d in %v: %s", shorten(strings.Join(args, " "), 160), r.code,
		r.took.Round(time.Millisecond), shorten(strings.TrimSuffix(r.stderr, "\n"), 400))

	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	if ctx.Err() != nil {
		bad("still running after %v: killed", within)
	} else if r.took > within {
		bad("took %v, want at most %v", r.took.Round(time.Millisecond), within)
	}
	if r.code != c.code {
		bad("exit status %d, want %d", r.code, c.code)
	}
	problems = append(problems, checkErrorLines(r.stderr, c.more)...)
	if re := regexp.MustCompile(`(?m)\A(?:` + ids.Replace(c.want) + `)`); !re.MatchString(strings.TrimPrefix(r.stderr, "git reason: ")) {
		bad("stderr %q does not match %q", shorten(r.stderr, 300), ids.Replace(c.want))
	}
	switch {
	case c.stdout == "" && r.stdout != "":
		bad("stdout is not empty: %q", shorten(r.stdout, 200))
	case c.stdout != "" && !regexp.MustCompile(c.stdout).MatchString(r.stdout):
		bad("stdout %q does not match %q", shorten(r.stdout, 200), c.stdout)
	}
	if refs := s.git("for-each-ref"); refs != baseRefs {
		*changedRefs = true
		bad("refs changed:\n%s", lineDiff(baseRefs, refs))
	}
	if objs := s.objects(); objs != baseObjs {
		bad("objects written: %s", lineDiff(baseObjs, objs))
	}
	if left := s.locks(); len(left) > 0 {
		bad("lock files left: %v", left)
		for _, l := range left {
			os.Remove(filepath.Join(s.gitDir(), l))
		}
	}
	return problems
}

// checkErrorLines checks the shape of stderr: one line "git reason: ...",
// or with more, that line and then indented violation lines; no control
// character anywhere but the newlines ending lines.
func checkErrorLines(stderr string, more bool) []string {
	var problems []string
	if !strings.HasSuffix(stderr, "\n") {
		return []string{fmt.Sprintf("stderr %q is not whole lines", shorten(stderr, 200))}
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "git reason: ") || len(lines[0]) <= len("git reason: ") {
		problems = append(problems, fmt.Sprintf("first stderr line %q does not start with \"git reason: \"", shorten(lines[0], 200)))
	}
	switch {
	case !more && len(lines) != 1:
		problems = append(problems, fmt.Sprintf("stderr has %d lines, want exactly 1: %q", len(lines), shorten(stderr, 300)))
	case more && len(lines) < 2:
		problems = append(problems, fmt.Sprintf("stderr has no violation lines after the first: %q", shorten(stderr, 300)))
	case more:
		for _, l := range lines[1:] {
			if !strings.HasPrefix(l, "  ") || strings.TrimSpace(l) == "" {
				problems = append(problems, fmt.Sprintf("violation line %q is not indented by two spaces", shorten(l, 200)))
			}
		}
	}
	for _, l := range lines {
		if i := strings.IndexFunc(l, unicode.IsControl); i >= 0 {
			problems = append(problems, fmt.Sprintf("stderr line holds control character %q: %q", l[i], shorten(l, 200)))
			break
		}
	}
	return problems
}

// badPrepare makes the repository every row runs in, and the replacer of
// the rows' ${X} placeholders by record ids:
//
//	T: A (minor), P, C (conclusion), V (manual validation), A2, P2, D (open disagreement on A2 citing C and V)
//	U: UA, UP, UC, UV, UA2, UP2, UD (disagreement), UR (its resolution)
//	M: MA (material, with evidence), MP (plan with a local-review checklist)
//	N: NA (minor), NP (plan): what a conclusion or a second plan would be admitted to
//
// AMB is a prefix (at least 6 characters) shared by two records of T, SHORT
// the first 5 characters of A. hot.txt, committed, holds "acme" on a line of
// 200,000 a's for the catastrophic-regexp row.
func badPrepare(t *testing.T) (*sandbox, *strings.Replacer) {
	s := newSandbox(t)
	hot := "acme " + strings.Repeat("a", 200000) + "!\n"
	if err := os.WriteFile(filepath.Join(s.dir, "hot.txt"), []byte(hot), 0o644); err != nil {
		t.Fatal(err)
	}
	s.git("add", "hot.txt")
	s.git("commit", "-q", "-m", "a long line")
	id := map[string]string{}
	task := func(name, prefix string) {
		id[prefix+"A"] = s.recordID("assess", name, "--subject", "first of "+name, "--question", "q", "--materiality", "minor", "--reversibility", "reversible")
		id[prefix+"P"] = s.recordID("plan", name)
		id[prefix+"C"] = s.recordID("conclude", name, "--decision", "d")
		id[prefix+"V"] = s.recordID("validate", name, "--manual", "pass", "--evidence", "note::checked")
		id[prefix+"A2"] = s.recordID("assess", name, "--subject", "second of "+name, "--question", "q", "--materiality", "minor", "--reversibility", "reversible")
		id[prefix+"P2"] = s.recordID("plan", name)
		id[prefix+"D"] = s.recordID("disagree", name, "--cites", id[prefix+"C"], "--cites", id[prefix+"V"], "--summary", "they conflict")
	}
	task("T", "")
	task("U", "U")
	id["UR"] = s.recordID("resolve", "U", id["UD"], "--decision", "d", "--evidence", "note::settled")
	id["MA"] = s.recordID("assess", "M", "--subject", "material one", "--question", "q", "--materiality", "material",
		"--reversibility", "costly", "--evidence", "note::why it matters")
	id["MP"] = s.recordID("plan", "M")
	id["NA"] = s.recordID("assess", "N", "--subject", "open one", "--question", "q", "--materiality", "minor", "--reversibility", "reversible")
	id["NP"] = s.recordID("plan", "N")

	tIDs := []string{id["A"], id["P"], id["C"], id["V"], id["A2"], id["P2"], id["D"]}
	for _, a := range tIDs {
		for _, b := range tIDs {
			n := 0
			for n < len(a) && a[n] == b[n] {
				n++
			}
			if a != b && n >= 6 && n > len(id["AMB"]) {
				id["AMB"] = a[:n]
			}
		}
	}
	if id["AMB"] == "" {
		t.Fatalf("no two records of T share a 6-character prefix: %v", tIDs)
	}
	id["SHORT"] = id["A"][:5]
	var pairs []string
	for k, v := range id {
		pairs = append(pairs, "${"+k+"}", v)
	}
	t.Logf("prepared tasks T, U, M, N (%d records); ambiguous prefix %s", len(id)-2, id["AMB"])
	return s, strings.NewReplacer(pairs...)
}

// filePath maps a row's file name to a path: ~/ is HOME, else the work tree.
func (s *sandbox) filePath(name string) string {
	if rest, ok := strings.CutPrefix(name, "~/"); ok {
		return filepath.Join(s.home, filepath.FromSlash(rest))
	}
	return filepath.Join(s.dir, filepath.FromSlash(name))
}

// objects lists every object in the repository, one name a line.
func (s *sandbox) objects() string {
	return s.git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
}

// restoreRefs puts every ref back to its value in want (git for-each-ref
// output) and deletes refs it does not list.
func (s *sandbox) restoreRefs(want string) {
	s.t.Helper()
	keep := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
		f := strings.Fields(line)
		s.git("update-ref", f[2], f[0])
		keep[f[2]] = true
	}
	for _, line := range strings.Split(strings.TrimSpace(s.git("for-each-ref")), "\n") {
		if f := strings.Fields(line); !keep[f[2]] {
			s.git("update-ref", "-d", f[2])
		}
	}
}

// lineDiff lists the lines added to and removed from a to make b.
func lineDiff(a, b string) string {
	al, bl := strings.Split(strings.TrimSpace(a), "\n"), strings.Split(strings.TrimSpace(b), "\n")
	var out []string
	for _, l := range bl {
		if !slices.Contains(al, l) {
			out = append(out, "+ "+l)
		}
	}
	for _, l := range al {
		if !slices.Contains(bl, l) {
			out = append(out, "- "+l)
		}
	}
	if len(out) > 10 {
		out = append(out[:10], fmt.Sprintf("... and %d more", len(out)-10))
	}
	return strings.Join(out, "\n")
}

// shorten cuts s to n bytes for a log line.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d bytes)", len(s))
}

// TestInputLimits shows the documented limits are where the schemas and
// record.MaxBodyBytes put them: at the limit a record is admitted, one past
// it refused (TestBadInput holds the refusals).
func TestInputLimits(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	pad := func(n int) string {
		body := assessJSON("")
		return body[:1] + strings.Repeat(" ", n-len(body)) + body[1:]
	}
	for _, c := range []struct {
		name string
		args []string
		body string
	}{
		{"subject of 200 characters", assessWith("L", "--subject", strings.Repeat("s", 200)), ""},
		{"subject of 200 two-byte characters", assessWith("L", "--subject", strings.Repeat("é", 200)), ""},
		{"question of 4,000 characters", assessWith("L", "--question", strings.Repeat("q", 4000)), ""},
		{"evidence summary of 2,000 and ref of 1,000", minor("L", "--evidence", "file:"+strings.Repeat("r", 1000)+":"+strings.Repeat("s", 2000)), ""},
		{"body of exactly 65,536 bytes", []string{"assess", "L", "--file", "body.json"}, pad(65536)},
	} {
		if c.body != "" {
			if err := os.WriteFile(filepath.Join(s.dir, "body.json"), []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r := s.reason(c.args...)
		t.Logf("%s: exit %d in %v", c.name, r.code, r.took.Round(time.Millisecond))
		if r.code != 0 {
			t.Errorf("%s: exit %d, want 0 (at the limit): %s", c.name, r.code, r.stderr)
		}
	}
}
