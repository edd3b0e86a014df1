package settings

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// Every test here reads configuration that real git wrote or lists, and
// where git can say what it would use (git config --get, git var), the
// answer is compared with git's.

func TestLoadIncludes(t *testing.T) {
	home, repo := sandboxRepo(t)
	write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = ~/inc/common\n"+
		"[includeIf \"gitdir:"+repo+"/\"]\n\tpath = inc/matched\n"+
		"[includeIf \"gitdir:/nowhere/\"]\n\tpath = inc/unmatched\n")
	write(t, filepath.Join(home, "inc", "common"), "[reason]\n\tprofile = offline\n[include]\n\tpath = nested\n")
	write(t, filepath.Join(home, "inc", "nested"), "[user]\n\tname = Nested Name\n")
	write(t, filepath.Join(home, "inc", "matched"), "[core]\n\thooksPath = matched-hooks\n")
	write(t, filepath.Join(home, "inc", "unmatched"), "[reason]\n\tdisable = everything\n")
	harness.Git(t, repo, "config", "user.email", "local@example.com")

	s := load(t, filepath.Join(repo, ".git"))
	if s.Profile != (Choice{"offline", "reason.profile"}) {
		t.Errorf("profile from include.path = %+v", s.Profile)
	}
	if s.Actor != (Identity{"Nested Name", "local@example.com"}) {
		t.Errorf("actor from a nested include and the repository = %+v", s.Actor)
	}
	if s.HooksPath != "matched-hooks" || s.HooksPath != harness.Git(t, repo, "config", "core.hooksPath") {
		t.Errorf("core.hooksPath from includeIf gitdir = %q", s.HooksPath)
	}
	if len(s.Disabled) != 0 {
		t.Errorf("an includeIf that does not match was applied: disabled %v", s.Disabled)
	}
	// Outside the repository the gitdir condition does not hold.
	out := load(t, "")
	if out.HooksPath != "" || out.Profile.Name != "offline" {
		t.Errorf("outside the repository: hooksPath %q, profile %+v", out.HooksPath, out.Profile)
	}
}

// gitParameters returns the GIT_CONFIG_PARAMETERS that git itself passes
// to a subcommand run as `git -c … reason`.
func gitParameters(t *testing.T, dir string, pairs ...string) string {
	t.Helper()
	var args []string
	for _, p := range pairs {
		args = append(args, "-c", p)
	}
	args = append(args, "-c", "alias.showparams=!printf %s \"$GIT_CONFIG_PARAMETERS\"", "showparams")
	return harness.Git(t, dir, args...)
}

func TestLoadCommandLine(t *testing.T) {
	home, repo := sandboxRepo(t)
	harness.Git(t, repo, "config", "reason.profile", "local")
	harness.Git(t, repo, "config", "reason.disable", "a b")
	write(t, filepath.Join(home, "extra"), "[core]\n\thooksPath = from-extra\n")
	params := gitParameters(t, repo, "reason.profile=from-c", "include.path="+filepath.Join(home, "extra"),
		"user.name=It's quoted")
	t.Setenv("GIT_CONFIG_PARAMETERS", params)

	s := load(t, filepath.Join(repo, ".git"))
	if s.Profile.Name != "from-c" {
		t.Errorf("git -c reason.profile: profile %+v", s.Profile)
	}
	if s.HooksPath != "from-extra" {
		t.Errorf("git -c include.path: hooksPath %q", s.HooksPath)
	}
	if s.Actor.Name != "It's quoted" {
		t.Errorf("git -c user.name with a quote: %q", s.Actor.Name)
	}
	if !reflect.DeepEqual(s.Disabled, []string{"a", "b"}) {
		t.Errorf("repository value under git -c: disabled %v", s.Disabled)
	}

	// GIT_CONFIG_COUNT is the other way git passes command-line settings.
	t.Setenv("GIT_CONFIG_PARAMETERS", "")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "reason.disable")
	t.Setenv("GIT_CONFIG_VALUE_0", "c,d")
	if s := load(t, filepath.Join(repo, ".git")); !reflect.DeepEqual(s.Disabled, []string{"c", "d"}) {
		t.Errorf("GIT_CONFIG_COUNT: disabled %v", s.Disabled)
	}
}

func TestLoadWorktreeConfig(t *testing.T) {
	_, repo := sandboxRepo(t)
	wt := linkedWorktree(t, repo)
	harness.Git(t, wt, "config", "--worktree", "reason.profile", "wt-only")
	wtGitDir := harness.Git(t, wt, "rev-parse", "--absolute-git-dir")

	if got := load(t, wtGitDir).Profile.Name; got != "wt-only" || got != harness.Git(t, wt, "config", "reason.profile") {
		t.Errorf("linked worktree with config.worktree: profile %q", got)
	}
	if got := load(t, filepath.Join(repo, ".git")).Profile.Name; got != "shared" {
		t.Errorf("main worktree: profile %q", got)
	}
}

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

func TestLoadBareAndGitDir(t *testing.T) {
	_, repo := sandboxRepo(t)
	harness.Git(t, repo, "config", "reason.profile", "of-repo")
	bare := filepath.Join(t.TempDir(), "b.git")
	harness.Git(t, repo, "init", "-q", "--bare", bare)
	harness.Git(t, bare, "config", "reason.profile", "of-bare")
	if got := load(t, bare).Profile.Name; got != "of-bare" {
		t.Errorf("bare repository: profile %q", got)
	}
	// The git dir the caller found wins over GIT_DIR (which it already
	// honoured in finding it) and over the current directory.
	t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
	if got := load(t, bare).Profile.Name; got != "of-bare" {
		t.Errorf("with GIT_DIR naming another repository: profile %q", got)
	}
}

func TestLoadIgnoresGitConfigVariable(t *testing.T) {
	home, repo := sandboxRepo(t)
	write(t, filepath.Join(home, "only"), "[reason]\n\tprofile = from-GIT_CONFIG\n")
	harness.Git(t, repo, "config", "--local", "user.name", "Local")
	// git config alone reads GIT_CONFIG; the commands whose view git
	// reason shares (git log, git commit) do not.
	t.Setenv("GIT_CONFIG", filepath.Join(home, "only"))
	s := load(t, filepath.Join(repo, ".git"))
	if s.Profile.Name != "default" || s.Actor.Name != "Local" {
		t.Errorf("GIT_CONFIG was read: profile %+v, name %q", s.Profile, s.Actor.Name)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, config, want string
	}{
		{"syntax", "[core\n", "bad config line 6 in file"},
		{"string without value", "[reason]\n\tprofile\n", "git config reason.profile has no value"},
		{"colour", "[color]\n\tui = sometimes\n", `git config color.ui: bad value "sometimes"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, repo := sandboxRepo(t)
			f, err := os.OpenFile(filepath.Join(repo, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(tc.config)
			f.Close()
			_, err = Load(context.Background(), filepath.Join(repo, ".git"), Flags{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line containing %q", err, tc.want)
			}
		})
	}
}

// TestPrecedence sets each value in every place it can come from and
// checks which wins.
func TestPrecedence(t *testing.T) {
	type kv = map[string]string
	for _, tc := range []struct {
		name   string
		config kv // git config --local
		env    kv
		flags  Flags
		check  func(*Settings) string
		want   string
	}{
		{"profile default", nil, nil, Flags{}, profile, "default/default"},
		{"profile CI", nil, kv{"CI": "true"}, Flags{}, profile, "ci/CI"},
		{"profile CI=1", nil, kv{"CI": "1"}, Flags{}, profile, "ci/CI"},
		{"profile CI=false", nil, kv{"CI": "false"}, Flags{}, profile, "default/default"},
		{"profile CI=maybe", nil, kv{"CI": "maybe"}, Flags{}, profile, "default/default"},
		{"profile config over CI", kv{"reason.profile": "offline"}, kv{"CI": "true"}, Flags{}, profile, "offline/reason.profile"},
		{"profile env over config", kv{"reason.profile": "offline"}, kv{"GIT_REASON_PROFILE": "ci"}, Flags{}, profile, "ci/GIT_REASON_PROFILE"},
		{"profile flag over all", kv{"reason.profile": "x"}, kv{"GIT_REASON_PROFILE": "y", "CI": "1"}, Flags{Profile: "offline"}, profile, "offline/--profile"},
		{"profile flag names default under CI", nil, kv{"CI": "1"}, Flags{Profile: "default"}, profile, "default/--profile"},

		{"disable config", kv{"reason.disable": "a, b a"}, nil, Flags{}, disabled, "a,b"},
		{"disable env over config", kv{"reason.disable": "a"}, kv{"GIT_REASON_DISABLE": "c"}, Flags{}, disabled, "c"},
		{"disable empty env re-enables", kv{"reason.disable": "a"}, kv{"GIT_REASON_DISABLE": ""}, Flags{}, disabled, ""},

		{"actor user", kv{"user.name": "U", "user.email": "u@x"}, nil, Flags{}, actor, "U <u@x>"},
		{"actor author over user", kv{"user.name": "U", "user.email": "u@x", "author.name": "A", "author.email": "a@x"}, nil, Flags{}, actor, "A <a@x>"},
		{"actor env over config", kv{"author.name": "A", "author.email": "a@x"}, kv{"GIT_AUTHOR_NAME": "E", "GIT_AUTHOR_EMAIL": "e@x"}, Flags{}, actor, "E <e@x>"},
		{"actor EMAIL last", kv{"user.name": "U"}, kv{"EMAIL": "env@x"}, Flags{}, actor, "U <env@x>"},
		{"actor EMAIL after user.email", kv{"user.name": "U", "user.email": "u@x"}, kv{"EMAIL": "env@x"}, Flags{}, actor, "U <u@x>"},
		{"actor committer ignored", kv{"user.name": "U", "user.email": "u@x"}, kv{"GIT_COMMITTER_NAME": "C", "GIT_COMMITTER_EMAIL": "c@x"}, Flags{}, actor, "U <u@x>"},

		{"pager default", nil, nil, Flags{}, pager, "less"},
		{"pager PAGER", nil, kv{"PAGER": "more"}, Flags{}, pager, "more"},
		{"pager empty PAGER", nil, kv{"PAGER": ""}, Flags{}, pager, ""},
		{"pager core over PAGER", kv{"core.pager": "most"}, kv{"PAGER": "more"}, Flags{}, pager, "most"},
		{"pager GIT_PAGER over all", kv{"core.pager": "most", "pager.reason": "pg"}, kv{"GIT_PAGER": "view", "PAGER": "more"}, Flags{}, pager, "view"},
		{"pager pager.reason command", kv{"core.pager": "most", "pager.reason": "pg"}, nil, Flags{}, pager, "pg reason=<nil>"},
		{"pager pager.reason false", kv{"core.pager": "most", "pager.reason": "false"}, nil, Flags{}, pager, "most reason=false"},
		{"pager cat is none", kv{"core.pager": "cat"}, nil, Flags{}, pager, ""},
		{"pager coloured by default", nil, nil, Flags{}, pagerPlain, "false"},
		{"pager color.pager false", kv{"color.pager": "false"}, nil, Flags{}, pagerPlain, "true"},
		{"pager color.pager no", kv{"color.pager": "no"}, nil, Flags{}, pagerPlain, "true"},
		{"pager color.pager true", kv{"color.pager": "true"}, nil, Flags{}, pagerPlain, "false"},

		{"color default", nil, nil, Flags{}, color, "auto"},
		{"color ui", kv{"color.ui": "always"}, nil, Flags{}, color, "always"},
		{"color ui true is auto", kv{"color.ui": "true"}, nil, Flags{}, color, "auto"},
		{"color reason over ui", kv{"color.ui": "always", "color.reason": "off"}, nil, Flags{}, color, "never"},
		{"color NO_COLOR", nil, kv{"NO_COLOR": "1"}, Flags{}, color, "never"},
		{"color NO_COLOR over auto", kv{"color.ui": "auto"}, kv{"NO_COLOR": "1"}, Flags{}, color, "never"},
		{"color always over NO_COLOR", kv{"color.reason": "always"}, kv{"NO_COLOR": "1"}, Flags{}, color, "always"},
		{"color empty NO_COLOR", nil, kv{"NO_COLOR": ""}, Flags{}, color, "auto"},

		{"config dir XDG", nil, kv{"XDG_CONFIG_HOME": "/xdg"}, Flags{}, configDir, "/xdg/git-reason"},
		{"config dir relative XDG", nil, kv{"XDG_CONFIG_HOME": "rel"}, Flags{}, configDir, "HOME/.config/git-reason"},
		{"config dir HOME", nil, nil, Flags{}, configDir, "HOME/.config/git-reason"},

		{"signing key home", nil, nil, Flags{}, signingHome, "HOME"},
		{"signing key home from HOME", nil, kv{"HOME": "/elsewhere"}, Flags{}, signingHome, "/elsewhere"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, repo := sandboxRepo(t)
			for k, v := range tc.config {
				harness.Git(t, repo, "config", k, v)
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			s, err := Load(context.Background(), filepath.Join(repo, ".git"), tc.flags)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.ReplaceAll(tc.check(s), home, "HOME"); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func profile(s *Settings) string    { return s.Profile.Name + "/" + s.Profile.By }
func disabled(s *Settings) string   { return strings.Join(s.Disabled, ",") }
func actor(s *Settings) string      { return s.Actor.String() }
func color(s *Settings) string      { return string(s.Color) }
func configDir(s *Settings) string  { return s.ConfigDir }
func pagerPlain(s *Settings) string { return strconv.FormatBool(s.Pager.Plain) }

func signingHome(s *Settings) string { return s.Signing.Home }
func pager(s *Settings) string {
	if s.Pager.Reason == nil {
		if s.Pager.Command == "pg" {
			return "pg reason=<nil>"
		}
		return s.Pager.Command
	}
	if *s.Pager.Reason {
		return s.Pager.Command + " reason=true"
	}
	return s.Pager.Command + " reason=false"
}

// TestAgreesWithGitVar compares the actor and the pager with what git
// itself would use (git var), over the ways each can be set.
func TestAgreesWithGitVar(t *testing.T) {
	type kv = map[string]string
	for _, tc := range []struct {
		config, env kv
	}{
		{kv{"user.name": "U", "user.email": "u@x"}, nil},
		{kv{"user.name": "U", "user.email": "u@x", "author.name": "A", "author.email": "a@x"}, nil},
		{kv{"user.name": "U", "author.email": "a@x"}, kv{"GIT_AUTHOR_NAME": "E", "EMAIL": "env@x"}},
		{kv{"user.name": "U"}, kv{"EMAIL": "env@x", "PAGER": "more"}},
		{kv{"user.name": "U", "user.email": "u@x", "core.pager": "most"}, kv{"PAGER": "more"}},
		{kv{"user.name": "U", "user.email": "u@x", "core.pager": "most"}, kv{"GIT_PAGER": "view"}},
		{kv{"user.name": "U", "user.email": "u@x", "core.pager": ""}, kv{"PAGER": "more"}},
	} {
		_, repo := sandboxRepo(t)
		for k, v := range tc.config {
			harness.Git(t, repo, "config", k, v)
		}
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		s := load(t, filepath.Join(repo, ".git"))
		ident := harness.Git(t, repo, "var", "GIT_AUTHOR_IDENT")
		if i := strings.LastIndexByte(ident, '>'); i < 0 || ident[:i+1] != s.Actor.String() {
			t.Errorf("%v %v: actor %q, git var GIT_AUTHOR_IDENT %q", tc.config, tc.env, s.Actor, ident)
		}
		want := harness.Git(t, repo, "var", "GIT_PAGER")
		if want == "cat" {
			want = ""
		}
		// With nothing set git runs its build's default (upstream's is
		// less, some distributions build with another); git reason uses
		// less, as upstream git does.
		_, pagerSet := tc.env["PAGER"]
		_, gitPagerSet := tc.env["GIT_PAGER"]
		_, coreSet := tc.config["core.pager"]
		if !pagerSet && !gitPagerSet && !coreSet {
			want = "less"
		}
		if s.Pager.Command != want {
			t.Errorf("%v %v: pager %q, git var GIT_PAGER %q", tc.config, tc.env, s.Pager.Command, want)
		}
		for k := range tc.env {
			os.Unsetenv(k)
		}
	}
}

func TestLoadRemotes(t *testing.T) {
	_, repo := sandboxRepo(t)
	harness.Git(t, repo, "remote", "add", "Up", "https://example.invalid/up.git")
	harness.Git(t, repo, "config", "--add", "remote.Up.fetch", "+refs/reasoning/tasks/*:refs/reasoning/remotes/Up/*")
	harness.Git(t, repo, "config", "branch.feature/x.remote", "Up")
	harness.Git(t, repo, "config", "remote.nourl.fetch", "+refs/heads/*:refs/remotes/nourl/*")
	s := load(t, filepath.Join(repo, ".git"))
	want := Remote{URL: "https://example.invalid/up.git", Fetch: []string{
		"+refs/heads/*:refs/remotes/Up/*", "+refs/reasoning/tasks/*:refs/reasoning/remotes/Up/*"}}
	if !reflect.DeepEqual(s.Remotes, map[string]Remote{"Up": want}) {
		t.Errorf("remotes %+v", s.Remotes)
	}
	if !reflect.DeepEqual(s.Upstreams, map[string]string{"feature/x": "Up"}) {
		t.Errorf("upstreams %v", s.Upstreams)
	}
}
