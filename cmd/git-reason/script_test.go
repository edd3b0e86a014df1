package main

// End-to-end tests: each testdata/script/*.txtar runs real git against real
// temporary repositories and the real binary (TestMain puts the harness's
// build of git-reason first on PATH).
//
// Most lines run it as "exec git-reason …": git's subcommand dispatch
// costs a git process of its own (about a sixth of a command's CPU time,
// bench/tests/run.sh percmd), and what it does for git-reason is only to
// put its exec path first on PATH and export GIT_EXEC_PATH, which
// setupScript does for every script, so git-reason runs with the same
// environment either way. The scripts about what passes through git
// itself say "exec git reason …" on every line and prove the dispatch:
// hooks (hooks_*, trust_hooks, push_with_code, server_hook), help and
// man pages (git turns "git reason --help" into "git help reason"), the
// pager and colour, completion, "git -C" and "git -c" (repo_shapes,
// settings), the full cycle a user reads first (full_cycle) and sharing
// between clones (sync_share).
//
// Custom script commands:
//
//	exitcode N PROG [ARG...]  run PROG, require exit status exactly N, keep stdout/stderr
//	getjson VAR PATH          set $VAR from the last stdout parsed as JSON; PATH is
//	                          dot-separated keys and array indexes (derived.local_review.0)
//	prefix VAR N VALUE        set $VAR to the first N characters of VALUE
//	expand IN OUT             copy file IN to OUT replacing $VAR and ${VAR} by their
//	                          values (txtar files are not expanded; bodies need ids)
//	schemacheck SCHEMAS PART DOC [FIELD|-FIELD...]
//	                          validate file DOC (or its top-level FIELD, or DOC
//	                          without its top-level FIELD: -FIELD; each in turn) against PART
//	                          (envelope, body or derived) of SCHEMAS, the output of
//	                          "git reason schema KIND", compiled with loading disabled:
//	                          the document must be self-contained; PART "-" takes
//	                          SCHEMAS whole as the schema ("git reason schema COMMAND")
//	mermaid FILE...           check every ```mermaid block of the files with Mermaid's
//	                          own parser (mermaid_test.go); at least one must be there
//	daemon VAR BASEPATH       start git daemon (receive-pack on) on a free loopback port
//	                          serving BASEPATH, $VAR its git:// URL; stopped with the
//	                          script (daemon_test.go)
//	fsck                      git fsck --strict: fail on a non-zero status or on any
//	                          output except "notice:" lines (harness.FsckConfig)
//	[!] transcript PROG [ARG...]
//	                          exec PROG and append what a user sees, ids normalised,
//	                          to $WORK/transcript.txt for a golden (transcript_test.go)
//

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"git-reason/reliability/harness"
	"git-reason/schemas"
)

// TestMain puts the git-reason binary of the shared harness first on PATH,
// for the scripts and for every test that starts git reason as a process.
// It is built once per go test run for all packages (reliability/harness),
// not re-executed from this test binary: the test binary links the test
// clients, the browser driver and testscript, and starting it costs about
// twice the real one's CPU time, a thousand times over in the scripts.
// The tests' repositories are made on a memory file system where there
// is one (harness.MemoryTemp).
func TestMain(m *testing.M) {
	harness.MemoryTemp()
	bin, err := harness.Binary()
	harness.ExitOn("cmd/git-reason tests", err)
	os.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	code := m.Run()
	for _, dir := range templateDirs.dirs {
		os.RemoveAll(dir)
	}
	os.Exit(harness.CheckRaces(code))
}

func TestScript(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the scripts use sh, test, ls and env")
	}
	harness.NeedGit(t)
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup:               setupScript,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":    cmdExitcode,
			"getjson":     cmdGetJSON,
			"prefix":      cmdPrefix,
			"expand":      cmdExpand,
			"fsck":        cmdFsck,
			"schemacheck": cmdSchemaCheck,
			"transcript":  cmdTranscript,
			"mermaid":     cmdMermaid,
			"githubbody":  cmdGitHubBody,
			"daemon":      cmdDaemon,
			"journaledit": cmdJournalEdit,
		},
		UpdateScripts: os.Getenv("GIT_REASON_UPDATE_GOLDEN") == "1",
		Condition: func(cond string) (bool, error) {
			if cond == "mermaid" {
				return mermaidCondition()
			}
			if tool, ok := strings.CutPrefix(cond, "have:"); ok {
				return haveTool(tool)
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// setupScript gives each script its own HOME with a git identity, and an
// environment free of the caller's git and CI settings.
func setupScript(env *testscript.Env) error {
	env.Values[normKey{}] = newNormaliser()
	home := filepath.Join(env.WorkDir, ".home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	gitconfig := "[user]\n\tname = Ada Tester\n\temail = ada@example.invalid\n" +
		"[init]\n\tdefaultBranch = main\n" +
		// No background gc or maintenance racing a script's own, and no
		// git gc --auto started by every push only to find gc.auto 0.
		"[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n[receive]\n\tautogc = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		return err
	}
	execPath, err := harness.GitExecPath()
	if err != nil {
		return err
	}
	for _, kv := range [][2]string{
		// What git's dispatch gives "git reason" (see the top of this
		// file), given to every script's commands.
		{"GIT_EXEC_PATH", execPath},
		{"PATH", execPath + string(os.PathListSeparator) + env.Getenv("PATH")},
		{"HOME", home},
		{"XDG_CONFIG_HOME", filepath.Join(home, ".config")},
		{"GIT_CONFIG_NOSYSTEM", "1"},
		// Discovery stops at $WORK: a script outside its repositories
		// must not find the one the tests happen to run in.
		{"GIT_CEILING_DIRECTORIES", filepath.Dir(env.WorkDir)},
		{"LC_ALL", "C"},
		{"TZ", "UTC"},
		// testscript starts from an empty environment; say so explicitly
		// for the variables that would change what git reason does.
		{"CI", ""},
		{"GIT_REASON_PROFILE", ""},
	} {
		env.Setenv(kv[0], kv[1])
	}
	// A race detector build's reports go to the log TestMain checks, so
	// that "! exec" or exitcode cannot take a race's exit status for the
	// failure the script expected.
	for _, kv := range harness.RaceEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env.Setenv(k, v)
	}
	return nil
}

// TestScriptsLogRaces: with a race detector build, every script's
// commands send their race reports where harness.CheckRaces reads them.
func TestScriptsLogRaces(t *testing.T) {
	dir := t.TempDir()
	defer harness.LogRacesIn(dir)()
	env := &testscript.Env{WorkDir: t.TempDir(), Values: map[any]any{}}
	if err := setupScript(env); err != nil {
		t.Fatal(err)
	}
	if got, want := env.Getenv("GORACE"), "log_path="+filepath.Join(dir, "race"); got != want {
		t.Errorf("a script's GORACE is %q, want %q", got, want)
	}
}

// cmdExitcode runs a program and requires its exact exit status, which
// "! exec" cannot: it only says "non-zero".
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exitcode")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG [ARG...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	got := execStatus(ts, "exitcode", args[1], args[2:]...)
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// execStatus runs prog like exec and returns its exit status; it fails
// the script when prog could not be run at all.
func execStatus(ts *testscript.TestScript, cmd, prog string, args ...string) int {
	err := ts.Exec(prog, args...)
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		ts.Fatalf("%s: %v", cmd, err)
	}
	return ee.ExitCode()
}

// cmdGetJSON sets an environment variable from a field of the last
// command's stdout, parsed as JSON.
func cmdGetJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: getjson VAR PATH")
	}
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile("stdout")))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		ts.Fatalf("getjson: stdout is not JSON: %v", err)
	}
	v, err := jpath(v, args[1])
	if err != nil {
		ts.Fatalf("getjson: %v", err)
	}
	switch x := v.(type) {
	case string:
		ts.Setenv(args[0], x)
	case json.Number:
		ts.Setenv(args[0], x.String())
	case bool:
		ts.Setenv(args[0], strconv.FormatBool(x))
	default:
		ts.Fatalf("getjson: %s is not a string, number or bool", args[1])
	}
}

// cmdPrefix sets VAR to the first N characters of VALUE.
func cmdPrefix(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: prefix VAR N VALUE")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 0 || n > len(args[2]) {
		ts.Fatalf("prefix: cannot take %s characters of %q", args[1], args[2])
	}
	ts.Setenv(args[0], args[2][:n])
}

// cmdExpand writes IN with environment variables expanded to OUT.
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand IN OUT")
	}
	out := os.Expand(ts.ReadFile(args[0]), ts.Getenv)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o644))
}

// cmdSchemaCheck validates a document against one part of a printed
// schema, the way a tool without git reason would: from that document
// alone, loading nothing.
func cmdSchemaCheck(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: schemacheck SCHEMAS PART DOC [FIELD|-FIELD...]")
	}
	part := json.RawMessage(ts.ReadFile(args[0]))
	if args[1] != "-" {
		var parts map[string]json.RawMessage
		if err := json.Unmarshal(part, &parts); err != nil {
			ts.Fatalf("schemacheck: %s: %v", args[0], err)
		}
		var ok bool
		if part, ok = parts[args[1]]; !ok {
			ts.Fatalf("schemacheck: %s has no %q", args[0], args[1])
		}
	}
	schema, err := schemas.CompileDocument(args[0]+" "+args[1], part)
	if err != nil {
		ts.Fatalf("schemacheck: compile %s of %s: %v", args[1], args[0], err)
	}
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(args[2])))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		ts.Fatalf("schemacheck: %s: %v", args[2], err)
	}
	for _, arg := range args[3:] {
		m, ok := doc.(map[string]any)
		field, without := strings.CutPrefix(arg, "-")
		if !ok || m[field] == nil {
			ts.Fatalf("schemacheck: %s has no field %q", args[2], field)
		}
		if without {
			delete(m, field)
		} else {
			doc = m[field]
		}
	}
	err = schema.Validate(doc)
	switch {
	case err != nil && !neg:
		ts.Fatalf("schemacheck: %s does not match %s: %#v", args[2], args[1], err)
	case err == nil && neg:
		ts.Fatalf("schemacheck: %s matches %s, want a violation", args[2], args[1])
	case err != nil:
		ts.Logf("violation, as wanted: %v", err)
	}
}

// cmdFsck runs git fsck --strict in the script's current directory and
// fails on anything but notices (an unborn HEAD, no default references).
func cmdFsck(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! fsck")
	}
	// Where the files show no commit-graph and no multi-pack-index, fsck
	// is told so and starts no verifier for them (two processes that would
	// check nothing); the script's environment must not move the objects.
	var config []string
	if ts.Getenv("GIT_DIR") == "" && ts.Getenv("GIT_OBJECT_DIRECTORY") == "" && ts.Getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES") == "" {
		config = harness.FsckConfig(ts.MkAbs("."))
	}
	err := ts.Exec("git", append(append(config, "fsck", "--strict", "--no-progress"), args...)...)
	if err != nil {
		ts.Fatalf("git fsck --strict: %v", err)
	}
	var bad bytes.Buffer
	for _, line := range strings.Split(ts.ReadFile("stdout")+ts.ReadFile("stderr"), "\n") {
		if line != "" && !strings.HasPrefix(line, "notice:") {
			fmt.Fprintln(&bad, line)
		}
	}
	if bad.Len() > 0 {
		ts.Fatalf("git fsck --strict reported:\n%s", bad.String())
	}
}

// haveTool is the script condition [have:NAME]: NAME is on PATH. Under
// CI=true a missing tool is an error, which fails the script instead of
// skipping it: .ci/run installs every tool a script asks for.
func haveTool(name string) (bool, error) {
	if _, err := exec.LookPath(name); err != nil {
		if harness.InCI() {
			return false, fmt.Errorf("%s is not on PATH under CI=true (.ci/run installs it)", name)
		}
		return false, nil
	}
	return true, nil
}
