package settings

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkLoad is the cost of reading the settings once, as the first
// command that needs one pays it: the in-process reader and resolve, in a
// repository with a global file, an include and a few repository keys.
// BenchmarkLoadWithGit is the same through the git config process the
// reader replaced (and still runs for what it leaves to git), and
// BenchmarkSpawnGit (git --version) the floor of any git process on the
// same machine in the same run. Run them together:
//
//	go test -run '^$' -bench . -count 5 ./cmd/git-reason/internal/settings
func BenchmarkLoad(b *testing.B) {
	gitDir := benchRepo(b)
	if _, err := readConfig(gitDir, os.LookupEnv); err != nil {
		b.Fatalf("the in-process reader leaves the benchmark's layout to git: %v", err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Load(ctx, gitDir, Flags{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadWithGit(b *testing.B) {
	gitDir := benchRepo(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		items, err := list(ctx, gitDir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := resolve(source{config: toConfig(items), lookupEnv: os.LookupEnv}, Flags{}); err != nil {
			b.Fatal(err)
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
	home := sandbox(b)
	repo := newRepo(b)
	write(b, filepath.Join(home, ".gitconfig"), "[user]\n\tname = B\n\temail = b@example.com\n[include]\n\tpath = more\n")
	write(b, filepath.Join(home, "more"), "[safe]\n\tdirectory = /x\n")
	git(b, repo, "config", "reason.profile", "offline")
	git(b, repo, "config", "reason.origin", "01jbenchmark")
	return filepath.Join(repo, ".git")
}
