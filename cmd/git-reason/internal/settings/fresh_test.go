package settings

import (
	"path/filepath"
	"testing"

	"git-reason/reliability/harness"
)

// TestChanged: a reading knows when a file it came from changes, so that a
// long-running process loads again, and only then.
func TestChanged(t *testing.T) {
	home, repo := sandboxRepo(t)
	gitDir := filepath.Join(repo, ".git")
	harness.Git(t, repo, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "one")
	write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = later\n"+
		"[includeIf \"onbranch:feature/**\"]\n\tpath = feature\n")
	write(t, filepath.Join(home, "feature"), "[reason]\n\tprofile = on-feature\n")

	for _, step := range []struct {
		name        string
		change      func()
		wantProfile string
	}{
		{"nothing written", func() {}, "default"},
		{"the repository's config", func() { harness.Git(t, repo, "config", "reason.disable", "x") }, "default"},
		{"a branch includeIf onbranch: names", func() { harness.Git(t, repo, "checkout", "-q", "-b", "feature/a") }, "on-feature"},
		{"an include target that did not exist", func() { write(t, filepath.Join(home, "later"), "[user]\n\tname = Later\n") }, "on-feature"},
		{"the worktree file", func() {
			harness.Git(t, repo, "config", "extensions.worktreeConfig", "true")
			harness.Git(t, repo, "config", "--worktree", "reason.profile", "wt")
		}, "wt"},
	} {
		s := load(t, gitDir)
		step.change()
		if changed := s.Changed(); changed != (step.name != "nothing written") {
			t.Errorf("%s: Changed() = %v", step.name, changed)
		}
		if got := load(t, gitDir).Profile.Name; got != step.wantProfile {
			t.Errorf("%s: read again, profile %q, want %q", step.name, got, step.wantProfile)
		}
	}
	if s := load(t, gitDir); s.Actor.Name != "Later" || s.Changed() {
		t.Errorf("after the include appeared: name %q, changed %v", s.Actor.Name, s.Changed())
	}
}
