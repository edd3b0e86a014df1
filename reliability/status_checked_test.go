package reliability

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/record"
	"git-reason/reliability/harness"
)

// TestStatusValidatesWhatItsWriterDidNot: a status replays a record this
// build's writer wrote without validating it against its schemas again
// (gitstore/checked.go: the task's list of what the writer did,
// written.d/, names with each commit the blob it validated, under a MAC
// of the repository's key), and validates every other. A
// record forged with plumbing, which its schema refuses (a question
// longer than it allows), fetched by hand after a head the status showed, is
// reported as not verifying whatever the list says of it: nothing, a line
// under another key, a line of another task, a line of a build whose
// schemas differ. Only a line this build's writer could have written
// vouches for it (the control, which shows the list is what decides).
func TestStatusValidatesWhatItsWriterDidNot(t *testing.T) {
	t.Parallel()
	const task = "T-checked"
	base := newSandbox(t)
	base.mustReason("assess", task, "--subject", "first", "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	if out := base.mustReason("status", task); strings.Contains(out, "does not verify") {
		t.Fatalf("the written task does not verify:\n%s", out)
	}
	// The forged record: the first one with the next clock, an id of its
	// own and a question longer than its schema allows.
	ref := taskRef(task)
	head := strings.TrimSpace(base.git("rev-parse", ref))
	name := strings.TrimSpace(base.git("ls-tree", "--name-only", head+":records"))
	var rec map[string]any
	if err := json.Unmarshal([]byte(base.git("cat-file", "blob", head+":records/"+name)), &rec); err != nil {
		t.Fatal(err)
	}
	oldID := rec["id"].(string)
	newID := oldID[:20] + "ZZZZZZ"
	rec["id"], rec["clock"] = newID, 2
	rec["body"].(map[string]any)["question"] = strings.Repeat("q", 4001) // the schema's maxLength is 4000
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	blob := strings.TrimSpace(base.run(t.Context(), append(data, '\n'), "git", "hash-object", "-w", "--stdin").stdout)
	clock := strings.SplitN(name, "-", 2)[0]
	newName := fmt.Sprintf("%0*d", len(clock), 2) + strings.TrimPrefix(strings.Replace(name, oldID, newID, 1), clock)
	tree := strings.TrimSpace(base.git("ls-tree", head+":records")) + "\n100644 blob " + blob + "\t" + newName + "\n"
	recordsTree := strings.TrimSpace(base.run(t.Context(), []byte(tree), "git", "mktree").stdout)
	root := strings.TrimSpace(base.run(t.Context(), []byte("040000 tree "+recordsTree+"\trecords\n"), "git", "mktree").stdout)
	msg := strings.ReplaceAll(base.git("log", "-1", "--format=%B", head), oldID, newID)
	// Dated and signed as the first commit, whose record's created time
	// the forged record keeps: only its question is wrong.
	dated := &sandbox{t: t, dir: base.dir, home: base.home, env: append(append([]string(nil), base.env...),
		"GIT_AUTHOR_DATE="+strings.TrimSpace(base.git("log", "-1", "--format=%ad", "--date=raw", head)),
		"GIT_COMMITTER_DATE="+strings.TrimSpace(base.git("log", "-1", "--format=%cd", "--date=raw", head)))}
	forged := strings.TrimSpace(dated.run(t.Context(), []byte(msg), "git", "commit-tree", "-p", head, root).stdout)

	key := harness.ReadFile(t, filepath.Join(base.gitDir(), "reason", "verified.key"))
	// What validating a record means in the binary under test: its
	// schemas and the schema library's version (record.SchemasDigest,
	// which a test binary cannot tell of itself).
	var lib string
	mod, err := exec.Command("go", "version", "-m", reasonBin).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(l); len(f) >= 4 && f[0] == "dep" && f[1] == "github.com/santhosh-tekuri/jsonschema/v5" {
			lib = f[2] + " " + f[3]
		}
	}
	digest := record.SchemasDigestWith(lib)
	if digest == "" {
		t.Fatalf("go version -m %s names no schema library", reasonBin)
	}
	line := func(key []byte, digest, task string) string {
		return lineOf(key, digest, task, forged, blob)
	}
	sum := sha256.Sum256([]byte(task))
	list := filepath.Join("reason", "written.d", hex.EncodeToString(sum[:16]))
	kept, err := os.ReadFile(filepath.Join(base.gitDir(), list))
	first := strings.TrimSpace(base.git("rev-parse", head+":records/"+name))
	if err != nil || !strings.Contains(string(kept), " "+first+" ") {
		t.Fatalf("the writer kept no list of the blobs it validated holding %s: %q, %v", first, kept, err)
	}
	if want := lineOf(key, digest, task, head, first); !strings.Contains(string(kept), want) {
		t.Fatalf("the writer's list %q lacks %q: this test does not write the lines as the writer does", kept, want)
	}
	// One list per task: the releases before wrote the blobs to a second
	// file, checked.d/, at the same moment.
	if _, err := os.Stat(filepath.Join(base.gitDir(), "reason", "checked.d")); !os.IsNotExist(err) {
		t.Errorf("the writer made .git/reason/checked.d (%v); want its lines in written.d's", err)
	}
	for _, c := range []struct {
		name, line string
		verifies   bool
	}{
		{"no line", "", false},
		{"a line under another key", line(make([]byte, 32), digest, task), false},
		{"a line of another task", line(key, digest, "T-other"), false},
		{"a line of a build whose schemas differ", line(key, "0123", task), false},
		{"control: a line of this build's writer", line(key, digest, task), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &sandbox{t: t, dir: filepath.Join(t.TempDir(), "repo"), home: base.home, env: base.env}
			base.run(t.Context(), nil, "cp", "-a", base.dir, s.dir)
			if c.line != "" {
				f, err := os.OpenFile(filepath.Join(s.gitDir(), list), os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(c.line)
				f.Close()
			}
			s.git("update-ref", ref, forged, head) // as a hand fetch moves it
			costFile := filepath.Join(t.TempDir(), "cost.json")
			withCost := &sandbox{t: t, dir: s.dir, home: s.home, env: append(append([]string(nil), s.env...), "GIT_REASON_COST="+costFile)}
			r := withCost.reason("status", task)
			cost, _ := os.ReadFile(costFile)
			got := r.code == 0 && !strings.Contains(r.stdout, "does not verify")
			if got != c.verifies {
				t.Errorf("status of a forged record with %s: verifies %v, want %v (exit %d, cost %s):\n%s%s", c.name, got, c.verifies, r.code, cost, r.stdout, r.stderr)
			}
			if !got && !strings.Contains(r.stdout+r.stderr, "length must be <= 4000") {
				t.Errorf("status of a forged record with %s does not say what its schema refuses (exit %d):\n%s%s", c.name, r.code, r.stdout, r.stderr)
			}
		})
	}
}

// lineOf is the line of the list of what the writer did in task that
// says it made commit, adding blob, which it validated, under key, for a
// build whose schemas digest is digest (gitstore/written.go, checked.go).
func lineOf(key []byte, digest, task, commit, blob string) string {
	mac := func(text string) string {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(text))
		return hex.EncodeToString(h.Sum(nil))
	}
	return commit + " " + mac("git-reason written v2\x00"+task+"\x00"+commit) + " " +
		blob + " " + mac("git-reason checked v1\x00"+digest+"\x00"+task+"\x00"+blob) + "\n"
}

// TestStatusPersonStepCompilesTheOverlayAlone: a status whose next step
// is a consult asks whether the plan's advisors can be asked now (the
// person's step), which reads the advisor declarations. The shipped
// tables are decoded without compiling their schemas (a test holds them
// to it: advisor.TestShippedValidate); the user's overlay, which anyone
// may have written, is validated: one schema compiled, not five.
func TestStatusPersonStepCompilesTheOverlayAlone(t *testing.T) {
	t.Parallel()
	const task = "T-person"
	s := newSandbox(t)
	cfg := filepath.Join(s.home, ".config", "git-reason")
	bin := t.TempDir()
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	overlay := `providers:
  - id: test_tool
    name: Test Tool
vendors:
  - id: testvendor
    name: Test Vendor
    models:
      - id: test-model
advisors:
  - id: test-advisor
    transport: cli
    adapter: exec
    executable: test-advisor
    command: [test-advisor]
    provider: test_tool
    vendor: testvendor
    model: test-model
    capabilities: [reasoning]
`
	if err := os.WriteFile(filepath.Join(cfg, "advisors.yaml"), []byte(overlay), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "test-advisor"), []byte("#!/bin/sh\ncat >/dev/null\necho '{\"stance\":\"endorse\",\"summary\":\"a view\",\"confidence\":0.6}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, e := range s.env {
		if p, ok := strings.CutPrefix(e, "PATH="); ok {
			s.env[i] = "PATH=" + bin + string(os.PathListSeparator) + p
		}
	}
	s.mustReason("assess", task, "--subject", "s", "--question", "q?", "--materiality", "material", "--reversibility", "costly", "--evidence", "note::n")
	s.mustReason("plan", task)
	if out := s.mustReason("status", task); !strings.Contains(out, "git reason consult "+task) {
		t.Fatalf("the plan selected no advisor to consult:\n%s", out)
	}
	if c := s.costed("status", task); c.Schemas != 1 {
		t.Errorf("status of a task whose next step is a consult compiled %d schemas: %+v; want 1, the overlay's", c.Schemas, c)
	}
}

// TestFirstStatusCompilesNoSchema: the first status of a task this
// clone's writer wrote, which has no saved state to go on from and
// replays the task whole, takes its records as the writer checked them
// (gitstore/checked.go), as a status after a saved state does: it
// compiles no schema. It compiled the three of an assessment.
func TestFirstStatusCompilesNoSchema(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.mustReason("assess", "T-first", "--subject", "first", "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	s.mustReason("assess", "T-first", "--subject", "second", "--question", "q?", "--materiality", "trivial", "--reversibility", "reversible")
	if c := s.costed("status", "T-first"); c.Schemas != 0 || c.Histories != 1 {
		t.Errorf("the first status of a task of two records written here: %+v; want one history replayed and no schema compiled", c)
	}
}
