package settings

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"git-reason/reliability/harness"
)

// BenchmarkLoad is the cost of reading the settings once, as the first
// command that needs one pays it: one git config process and resolve, in
// a repository with a global file, an include and a few repository keys.
// BenchmarkChanged is what a long-running process pays per request to
// learn whether to read again, and BenchmarkSpawnGit (git --version) the
// floor of any git process on the same machine in the same run. Run them
// together:
//
//	go test -run '^$' -bench . -count 5 ./cmd/git-reason/internal/settings
func BenchmarkLoad(b *testing.B) {
	gitDir := benchRepo(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := Load(ctx, gitDir, Flags{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChanged(b *testing.B) {
	s := load(b, benchRepo(b))
	for b.Loop() {
		if s.Changed() {
			b.Fatal("changed without a write")
		}
	}
}

func BenchmarkSpawnGit(b *testing.B) {
	sandbox(b)
	for b.Loop() {
		if err := exec.Command("git", "--version").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchRepo(b *testing.B) string {
	home, repo := sandboxRepo(b)
	write(b, filepath.Join(home, ".gitconfig"), "[user]\n\tname = B\n\temail = b@example.com\n[include]\n\tpath = more\n")
	write(b, filepath.Join(home, "more"), "[safe]\n\tdirectory = /x\n")
	harness.Git(b, repo, "config", "reason.profile", "offline")
	harness.Git(b, repo, "config", "reason.origin", "01jbenchmark")
	return filepath.Join(repo, ".git")
}
