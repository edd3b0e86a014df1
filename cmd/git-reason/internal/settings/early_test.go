package settings

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"git-reason/reliability/harness"
)

// TestEarlyAgreesWithLoad holds the listing started beside discovery
// (StartEarly, run where the command runs, before its git directory is
// known) to what Load reads for the git directory discovery then finds,
// in each shape of repository git finds differently: a subdirectory of a
// work tree with an includeIf on the git directory, a linked worktree
// with its own config.worktree, a bare repository, and GIT_DIR naming a
// repository elsewhere. Each case's profile comes from the repository's
// own configuration, so a listing made anywhere else differs.
func TestEarlyAgreesWithLoad(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, home string) (dir, want string)
	}{
		{"subdirectory and includeIf gitdir", func(t *testing.T, home string) (string, string) {
			repo := newRepo(t)
			write(t, filepath.Join(home, ".gitconfig"), "[includeIf \"gitdir:"+repo+"/\"]\n\tpath = matched\n")
			write(t, filepath.Join(home, "matched"), "[reason]\n\tprofile = from-includeif\n")
			sub := filepath.Join(repo, "a", "b")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			return sub, "from-includeif"
		}},
		{"linked worktree with config.worktree", func(t *testing.T, _ string) (string, string) {
			wt := linkedWorktree(t, newRepo(t))
			harness.Git(t, wt, "config", "--worktree", "reason.profile", "wt-only")
			return wt, "wt-only"
		}},
		{"bare repository", func(t *testing.T, _ string) (string, string) {
			bare := filepath.Join(t.TempDir(), "b.git")
			harness.Git(t, t.TempDir(), "init", "-q", "--bare", bare)
			harness.Git(t, bare, "config", "reason.profile", "of-bare")
			return bare, "of-bare"
		}},
		{"GIT_DIR", func(t *testing.T, _ string) (string, string) {
			repo := newRepo(t)
			harness.Git(t, repo, "config", "reason.profile", "of-git-dir")
			t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
			return t.TempDir(), "of-git-dir"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := sandbox(t)
			dir, want := tc.setup(t, home)
			gitDir := harness.Git(t, dir, "rev-parse", "--path-format=absolute", "--git-dir")
			early, err := StartEarly(dir).Load(context.Background(), gitDir, Flags{})
			if err != nil {
				t.Fatal(err)
			}
			loaded := load(t, gitDir)
			if early.Profile.Name != want {
				t.Errorf("listed beside discovery: profile %+v, want %q", early.Profile, want)
			}
			loaded.files = nil // the early reading watches nothing: it serves one command
			if !reflect.DeepEqual(early, loaded) {
				t.Errorf("listed beside discovery:\n%+v\nLoad:\n%+v", early, loaded)
			}
		})
	}
}

// TestEarlyErrorIsLoads: a configuration git refuses fails with Load's
// message (git names the file by the path Load gave it), not the early
// listing's.
func TestEarlyErrorIsLoads(t *testing.T) {
	_, repo := sandboxRepo(t)
	write(t, filepath.Join(repo, ".git", "config"), "[core\n")
	gitDir := filepath.Join(repo, ".git")
	_, want := Load(context.Background(), gitDir, Flags{})
	_, got := StartEarly(repo).Load(context.Background(), gitDir, Flags{})
	if want == nil || got == nil || got.Error() != want.Error() {
		t.Errorf("early listing: %v, want Load's %v", got, want)
	}
}
