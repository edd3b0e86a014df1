//go:build unix

package settings

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// agrees holds the reader to git for one layout where either answer is
// acceptable from the reader: git's list, or leaving the layout to git.
func agrees(t *testing.T, gitDir string) []item {
	t.Helper()
	got, err := readConfig(gitDir, os.LookupEnv)
	want, gitErr := list(context.Background(), gitDir)
	if errors.Is(err, errAskGit) {
		return want
	}
	if err != nil || gitErr != nil {
		t.Fatalf("reader: %v; git: %v", err, gitErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("in-process list differs from git's:\n got %s\nwant %s", showItems(got), showItems(want))
	}
	return want
}

// readsWithin runs the reader alone (git may wait without end on the same
// layout) and fails the test when it does not return in time.
func readsWithin(t *testing.T, gitDir string, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := readConfig(gitDir, os.LookupEnv)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("the reader did not return within %v", d)
		return nil
	}
}

// TestReaderOnBranchOddHeads: onbranch: against a HEAD git does not take
// as a branch (a name check_refname_format refuses, a branch ref that is
// corrupt or a symbolic link to another branch): the reader includes what
// git includes.
func TestReaderOnBranchOddHeads(t *testing.T) {
	sandbox(t)
	repo := newRepo(t)
	gitDir := filepath.Join(repo, ".git")
	git(t, repo, "config", "includeIf.onbranch:foo*.path", "inc")
	write(t, filepath.Join(gitDir, "inc"), "[from]\n\tinc = yes\n")
	for _, head := range []string{
		"foo.lock", "foo\x01x", "foo/", "foo@{x", "foo/.x", "foo\tx", "foo.", "foo//x", "foo/x.lock/y",
	} {
		t.Run(strings.ToValidUTF8(head, "?"), func(t *testing.T) {
			write(t, filepath.Join(gitDir, "HEAD"), "ref: refs/heads/"+head+"\n")
			agrees(t, gitDir)
		})
	}
	write(t, filepath.Join(gitDir, "HEAD"), "ref: refs/heads/foox\n")
	ref := filepath.Join(gitDir, "refs", "heads", "foox")
	t.Run("corrupt branch ref", func(t *testing.T) {
		write(t, ref, "garbage\n")
		defer os.Remove(ref)
		agrees(t, gitDir)
	})
	t.Run("branch ref a symbolic link to another branch", func(t *testing.T) {
		if err := os.Symlink("refs/heads/other", ref); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(ref)
		agrees(t, gitDir)
	})
	t.Run("branch ref a directory", func(t *testing.T) {
		if err := os.Mkdir(ref, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(ref)
		if items := agrees(t, gitDir); !hasItem(items, "local", "from.inc", "yes") {
			t.Errorf("git did not take the branch: %s", showItems(items))
		}
	})
}

// TestReaderFIFOs: a repository whose branch ref, included file or
// commondir file is a FIFO must not make the reader wait for a writer.
func TestReaderFIFOs(t *testing.T) {
	sandbox(t)
	t.Run("branch ref", func(t *testing.T) {
		repo := newRepo(t)
		gitDir := filepath.Join(repo, ".git")
		git(t, repo, "config", "includeIf.onbranch:main.path", "inc")
		if err := syscall.Mkfifo(filepath.Join(gitDir, "refs", "heads", "main"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := readsWithin(t, gitDir, 5*time.Second); !errors.Is(err, errAskGit) {
			t.Errorf("reader: %v, want it left to git", err)
		}
	})
	t.Run("include", func(t *testing.T) {
		repo := newRepo(t)
		gitDir := filepath.Join(repo, ".git")
		git(t, repo, "config", "include.path", "fifo")
		if err := syscall.Mkfifo(filepath.Join(gitDir, "fifo"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := readsWithin(t, gitDir, 5*time.Second); !errors.Is(err, errAskGit) {
			t.Errorf("reader: %v, want it left to git", err)
		}
	})
	t.Run("commondir", func(t *testing.T) {
		repo := newRepo(t)
		gitDir := filepath.Join(repo, ".git")
		if err := syscall.Mkfifo(filepath.Join(gitDir, "commondir"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := readsWithin(t, gitDir, 5*time.Second); !errors.Is(err, errAskGit) {
			t.Errorf("reader: %v, want it left to git", err)
		}
	})
}

// TestReaderIncludeFanOut: includes repeated at every level (no loop, so
// git's depth limit never trips) multiply the variables without end; the
// reader stops with an error instead of growing until the process dies.
func TestReaderIncludeFanOut(t *testing.T) {
	home := sandbox(t)
	repo := newRepo(t)
	gitDir := filepath.Join(repo, ".git")
	many := func(target string) string {
		return "[include]\n" + strings.Repeat("\tpath = "+target+"\n", 4000)
	}
	git(t, repo, "config", "include.path", filepath.Join(home, "a"))
	write(t, filepath.Join(home, "a"), many("b"))
	write(t, filepath.Join(home, "b"), many("c"))
	write(t, filepath.Join(home, "c"), many("d"))
	write(t, filepath.Join(home, "d"), "[x]\n\ty = z\n")
	err := readsWithin(t, gitDir, 20*time.Second)
	if err == nil || errors.Is(err, errAskGit) {
		t.Fatalf("reader: %v, want an error of its own (git would list 6.4e10 variables)", err)
	}
}

// TestSafeDirectoryConditionalIncludes: git reads safe.directory as
// outside any repository, so a global file's includeIf that the
// repository under check could satisfy (its HEAD, its path, its remote
// URLs) adds nothing; an unconditional include does. Each case is first
// put to git itself, which is told to take the repository as another
// user's.
func TestSafeDirectoryConditionalIncludes(t *testing.T) {
	for _, tc := range []struct {
		name, cond string
		trusted    bool
	}{
		{"onbranch", "includeIf \"onbranch:main\"", false},
		{"gitdir", "includeIf \"gitdir:/\"", false},
		{"hasconfig of the repository's remote", "includeIf \"hasconfig:remote.*.url:https://example.invalid/**\"", false},
		{"unconditional", "include", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := sandbox(t)
			repo := newRepo(t)
			git(t, repo, "remote", "add", "origin", "https://example.invalid/team/repo.git")
			write(t, filepath.Join(home, ".gitconfig"), "["+tc.cond+"]\n\tpath = trusted\n")
			write(t, filepath.Join(home, "trusted"), "[safe]\n\tdirectory = *\n")
			cmd := exec.Command("git", "status")
			cmd.Dir, cmd.Env = repo, append(os.Environ(), "GIT_TEST_ASSUME_DIFFERENT_OWNER=1")
			if err := cmd.Run(); (err == nil) != tc.trusted {
				t.Fatalf("control: git status of a repository taken as another user's: %v, want trusted %v", err, tc.trusted)
			}
			var want []string
			if tc.trusted {
				want = []string{"*"}
			}
			if got := load(t, filepath.Join(repo, ".git")).SafeDirectories; !reflect.DeepEqual(got, want) {
				t.Errorf("Load: safe directories %q, want %q", got, want)
			}
			if got, err := SafeDirectories(context.Background()); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("SafeDirectories: %q, %v; want %q", got, err, want)
			}
		})
	}
}
