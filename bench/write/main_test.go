package main

import (
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// TestSmall runs the whole benchmark on tiny repositories, so that the
// program keeps working as the code it times changes: it fails when any
// git reason command fails, when a generated repository does not hold the
// tasks and records asked for, or when a row of the report is missing.
func TestSmall(t *testing.T) {
	harness.SkipShort(t, "builds the binary and runs git")
	dir := t.TempDir()
	// -cpuprofile builds the profiling program and profiles the cases
	// -profile-match names (whether they miss their targets depends on
	// the machine's load): a profiling build that no longer compiles
	// fails here.
	args := []string{"-runs", "2", "-sizes", "30,90", "-per-task", "10", "-status", "25", "-dir", dir,
		"-cpuprofile", filepath.Join(dir, "profiles"), "-profile-runs", "2", "-profile-match", `^git reason assess \(30 records\)$`}
	rows := []string{"## profile: git reason assess (30 records) (2 processes merged;"}
	if _, err := exec.LookPath("valgrind"); err == nil {
		// The floors' instructions beside assess's.
		args = append(args, "-instructions", "1")
		rows = append(rows, "  "+floorExitCase+" ", "  "+floorOpenCase+" ", "  git reason assess (30 records) ")
	}
	o, report := runReport(t, args...)
	harness.HasRows(t, report, append(rows, "git notes --ref=x append", "(startup floor)", "git reason assess (30 records)",
		"git reason assess (90 records)", "git reason status (task of 25 records)", "git reason context (10 commits, 90 records)", "git-reason --version",
		"hello-world Go program", "targets (medians):", gitHelloCase, "(the floor of any git subcommand written in Go)",
		"(git-reason's own start-up and work)", floorExitCase+" ÷ git notes --ref=x append", floorOpenCase+" ÷ git notes --ref=x append",
		"git reason assess (30 records) − "+floorOpenCase)...)
	// With GIT_BUG naming a git-bug binary (the -git-bug default), its
	// write is timed beside assess, against the budget's 0.5×.
	if o.gitBug != "" && !strings.Contains(report, "git reason assess (30 records) ÷ "+gitBugName+" = ") {
		t.Errorf("GIT_BUG=%s: the report has no assess ÷ git-bug target", o.gitBug)
	}
	b, err := newBench(o, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		repo, ref      string
		tasks, records int
	}{
		{"repo-90", "refs/reasoning/tasks/T-00008", 9, 10},
		{"status-25", "refs/reasoning/tasks/T-00000", 1, 25},
	} {
		repo := filepath.Join(dir, c.repo)
		refs, err := b.gitOut(repo, "for-each-ref", "--format=%(refname)", "refs/reasoning/tasks/")
		if err != nil {
			t.Fatal(err)
		}
		files, err := b.gitOut(repo, "ls-tree", "-r", "--name-only", c.ref)
		if err != nil {
			t.Fatal(err)
		}
		if n, m := len(strings.Fields(refs)), len(strings.Fields(files)); n != c.tasks || m != c.records {
			t.Errorf("%s holds %d tasks and %d records in %s; want %d and %d", c.repo, n, m, c.ref, c.tasks, c.records)
		}
	}
}

// runReport runs the benchmark with args and returns its options and its
// report, logged.
func runReport(t *testing.T, args ...string) (*options, string) {
	t.Helper()
	o, err := parseFlags(args)
	if err != nil {
		t.Fatal(err)
	}
	return o, harness.Report(t, func(w io.Writer) error { return run(o, w) })
}

// TestStartupOnly runs -only startup with -baseline: the start-up cases,
// --version ÷ hello world (wall and CPU) for information and not as a
// target (issue 23 retired it), --version as built from HEAD beside them,
// and none of the write, status or context cases.
func TestStartupOnly(t *testing.T) {
	harness.SkipShort(t, "builds the binary and runs git")
	args := []string{"-only", "startup", "-baseline", "HEAD", "-runs", "2", "-sizes", "20", "-per-task", "10", "-dir", t.TempDir()}
	rows := []string{"git notes --ref=x append", "(startup floor)", "git-reason --version at ",
		"git-reason --version ÷ hello-world Go program: ",
		// The baseline is built as the build under test is, by default.
		fmt.Sprintf(" with -tags %q and copied ", installTags)}
	if _, err := exec.LookPath("valgrind"); err == nil {
		args = append(args, "-instructions", "1")
		rows = append(rows, " instructions (", " minor page faults (")
	}
	_, report := runReport(t, args...)
	harness.HasRows(t, report, rows...)
	for _, row := range []string{"git reason assess", "git reason status", "git reason context"} {
		if strings.Contains(report, row) {
			t.Errorf("-only startup timed %q", row)
		}
	}
	if strings.Contains(report, "hello-world Go program = ") {
		t.Error("--version ÷ hello world is still reported as a target")
	}
	if _, err := parseFlags([]string{"-only", "writes"}); err == nil {
		t.Error("-only writes was accepted")
	}
}

// TestInstallTagsAsREADME holds README's install command to the build tags
// the benchmark and the tests' harness build with, and .ci/run to README's
// test command: the figures reported are those of the program a user
// installs, and CI runs the tests a newcomer runs.
func TestInstallTagsAsREADME(t *testing.T) {
	const testCommand = "\ngo test -timeout 30m ./...  "
	for _, c := range []struct{ file, want string }{
		{"../../README.md", "go install -tags " + installTags + " ./cmd/... "},
		{"../../README.md", testCommand},
		{"../../.ci/run", strings.TrimSpace(testCommand) + "\n"},
	} {
		file, want := c.file, c.want
		data := harness.ReadFile(t, file)
		if !strings.Contains(string(data), want) {
			t.Errorf("%s does not say %q", file, want)
		}
	}
}
