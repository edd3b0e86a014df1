package main

// A repository owned by another user is refused as git refuses it
// (safe.directory), and git reason writes nothing into it: no origin in its
// config, no .git/reason/, no ref. The test makes the other owner by
// chown to a uid that is not the test's, which needs root; without root it
// skips and says why.

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// otherUID is the owner the test gives the repository: any uid but the
// test's own will do, and chown takes a number with no account behind it.
const otherUID = 4242

func TestForeignOwnerRefused(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("owners are compared on unix only")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the repository another owner (chown); run the tests as root to include this one")
	}
	self := sandboxPossible(t)
	root := t.TempDir()
	home, repo := filepath.Join(root, "home"), filepath.Join(root, "repo")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = Ada Tester\n\temail = ada@example.invalid\n")
	env := []string{
		"PATH=" + filepath.Dir(self) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CEILING_DIRECTORIES=" + root, "LC_ALL=C",
	}
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, append(env, "SUDO_UID=") // git reads SUDO_UID as root
		out, errb, code := harness.Run(t, cmd)
		if code != want {
			t.Fatalf("git %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, errb)
		}
		return out, errb
	}
	if err := os.MkdirAll(filepath.Join(repo, ".reason"), 0o755); err != nil {
		t.Fatal(err)
	}
	run(0, "init", "-q")
	// The other user's repository declares a command-running advisor in
	// its own config, where git ignores safe.directory.
	run(0, "config", "safe.directory", "*")
	harness.WriteFile(t, filepath.Join(repo, ".reason", "advisors.yaml"), "order: []\n")
	err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, otherUID, otherUID)
	})
	if err != nil {
		t.Fatal(err)
	}
	before := harness.Listing(t, repo)

	// Control: git itself refuses the repository.
	if _, stderr := run(128, "status"); !strings.Contains(stderr, "safe.directory") {
		t.Fatalf("control: git did not refuse the repository: %s", stderr)
	}
	for _, args := range [][]string{
		{"reason", "assess", "T", "--subject", "s", "--question", "q", "--materiality", "minor", "--reversibility", "reversible"},
		{"reason", "status"},
		{"reason", "advisors"},
		{"reason", "hooks", "install"},
		{"reason", "trust"},
	} {
		_, stderr := run(3, args...)
		if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "safe.directory") || !strings.Contains(stderr, repo) {
			t.Errorf("git %s: want one line naming safe.directory and the repository, got %q", strings.Join(args, " "), stderr)
		}
	}
	if after := harness.Listing(t, repo); after != before {
		t.Errorf("git reason wrote into a repository it refused:\n%s", harness.LineDiff(before, after))
	}

	// safe.directory in the user's own configuration: git and git reason
	// accept it.
	run(0, "config", "--global", "--add", "safe.directory", repo)
	run(0, "status")
	run(0, "reason", "status")
	run(0, "config", "--global", "--unset-all", "safe.directory")
	run(3, "reason", "status")
	run(0, "config", "--global", "--add", "safe.directory", "*")
	run(0, "reason", "status")
	// An empty value clears the ones before it, in git and in git reason.
	run(0, "config", "--global", "--add", "safe.directory", "")
	run(128, "status")
	run(3, "reason", "status")

	// A global includeIf that the repository under check satisfies (its
	// branch, its path) does not make it safe: git reads safe.directory as
	// outside any repository, where such conditions never hold.
	run(0, "config", "--global", "--unset-all", "safe.directory")
	trusted := filepath.Join(home, "trusted")
	harness.WriteFile(t, trusted, "[safe]\n\tdirectory = *\n")
	for _, key := range []string{"includeIf.onbranch:**.path", "includeIf.gitdir:/.path"} {
		run(0, "config", "--global", key, trusted)
		run(128, "status")
		run(3, "reason", "status")
		run(0, "config", "--global", "--unset", key)
	}
	run(0, "config", "--global", "include.path", trusted)
	run(0, "status")
	run(0, "reason", "status")
}
