package settings

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The in-process reader is held to git itself: every layout below is
// listed by real git (`git config -z --list --show-scope`, the process the
// reader replaces) and read in-process, and the two lists must be the
// same, line for line, scope for scope; so must the Settings resolved
// from them. Where the reader leaves a layout to git, the test says so
// and checks that Load still gives git's answer.

// differ compares the in-process reader with git for the repository at
// gitDir under the current environment. wantGit says the reader must
// leave this layout to git.
func differ(t *testing.T, gitDir string, wantGit bool) []item {
	t.Helper()
	ctx := context.Background()
	got, err := readConfig(gitDir, os.LookupEnv)
	want, gitErr := list(ctx, gitDir)
	if wantGit {
		if !errors.Is(err, errAskGit) {
			t.Fatalf("the reader read a layout it must leave to git: err %v, items %s (git: %v)", err, showItems(got), gitErr)
		}
		s, loadErr := Load(ctx, gitDir, Flags{})
		if gitErr != nil {
			if loadErr == nil || loadErr.Error() != gitErr.Error() {
				t.Errorf("Load error %v, want git's %v", loadErr, gitErr)
			}
			return nil
		}
		if loadErr != nil {
			t.Fatalf("Load: %v (git listed the configuration)", loadErr)
		}
		checkResolved(t, s, want)
		return want
	}
	if gitErr != nil {
		t.Fatalf("git config failed on a layout the test expects it to read: %v", gitErr)
	}
	if err != nil {
		t.Fatalf("in-process reader: %v (git listed %s)", err, showItems(want))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("in-process list differs from git's:\n got %s\nwant %s", showItems(got), showItems(want))
	}
	s, err := Load(ctx, gitDir, Flags{})
	if err != nil {
		t.Fatal(err)
	}
	checkResolved(t, s, want)
	return got
}

// checkResolved compares Settings resolved from git's list with s.
func checkResolved(t *testing.T, s *Settings, gitItems []item) {
	t.Helper()
	fromGit, err := resolve(source{config: toConfig(gitItems), lookupEnv: os.LookupEnv}, Flags{})
	if err != nil {
		t.Fatalf("resolve git's list: %v", err)
	}
	if !reflect.DeepEqual(s, fromGit) {
		t.Errorf("Settings differ:\n got %+v\nwant %+v", s, fromGit)
	}
}

func showItems(items []item) string {
	var b strings.Builder
	for _, it := range items {
		if it.hasValue {
			fmt.Fprintf(&b, "\n  %s %s=%q", it.scope, it.key, it.value)
		} else {
			fmt.Fprintf(&b, "\n  %s %s (no value)", it.scope, it.key)
		}
	}
	return b.String()
}

func hasItem(items []item, scope, key, value string) bool {
	for _, it := range items {
		if it.scope == scope && it.key == key && it.value == value {
			return true
		}
	}
	return false
}

func TestReaderIncludes(t *testing.T) {
	home := sandbox(t)
	repo := newRepo(t)
	gitDir := filepath.Join(repo, ".git")
	write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = ~/inc/common\n\tpath = inc/missing\n"+
		"[includeIf \"gitdir:"+repo+"/\"]\n\tpath = inc/trailing-slash\n"+
		"[includeIf \"gitdir:~/\"]\n\tpath = inc/under-home\n"+
		"[includeIf \"gitdir:"+filepath.Dir(repo)+"/**\"]\n\tpath = inc/starstar\n"+
		"[includeIf \"gitdir:"+filepath.Base(repo)+"/.git\"]\n\tpath = inc/relative-pattern\n"+
		"[includeIf \"gitdir:"+strings.ToUpper(repo)+"/\"]\n\tpath = inc/wrong-case\n"+
		"[includeIf \"gitdir/i:"+strings.ToUpper(repo)+"/\"]\n\tpath = inc/icase\n"+
		"[includeIf \"gitdir:/nowhere/\"]\n\tpath = inc/unmatched\n"+
		"[includeIf \"gitdir:"+filepath.Dir(repo)+"/*/.git\"]\n\tpath = inc/one-star\n"+
		"[includeIf \"gitdir:/*/.git\"]\n\tpath = inc/star-no-slash\n"+
		"[includeIf \"unknown:x\"]\n\tpath = inc/unknown\n"+
		"[includeIf \"gitdir:"+repo+"/\"]\n\tother = not-an-include\n")
	for _, f := range []string{"trailing-slash", "under-home", "starstar", "relative-pattern", "wrong-case",
		"icase", "unmatched", "one-star", "star-no-slash", "unknown"} {
		write(t, filepath.Join(home, "inc", f), "[from]\n\t"+strings.ReplaceAll(f, "-", "")+" = yes\n")
	}
	write(t, filepath.Join(home, "inc", "common"), "[reason]\n\tprofile = offline\n[include]\n\tpath = nested\n")
	write(t, filepath.Join(home, "inc", "nested"), "[user]\n\tname = Nested Name\n[include]\n\tpath = ../inc2/deeper\n")
	write(t, filepath.Join(home, "inc2", "deeper"), "[user]\n\temail = deep@example.com\n")
	// The repository's own includes, relative to its config file, and a
	// condition relative to the including file.
	git(t, repo, "config", "include.path", "local-inc")
	write(t, filepath.Join(gitDir, "local-inc"), "[core]\n\thooksPath = from-local-include\n")
	git(t, repo, "config", "--add", "include.path", "../dot.inc")
	write(t, filepath.Join(repo, "dot.inc"), "[includeIf \"gitdir:./.git\"]\n\tpath = .git/dot-inc\n"+
		"[includeIf \"gitdir:./\"]\n\tpath = .git/dot-inc-unmatched\n")
	write(t, filepath.Join(gitDir, "dot-inc"), "[from]\n\tdotslash = yes\n")
	write(t, filepath.Join(gitDir, "dot-inc-unmatched"), "[from]\n\tdotslashunmatched = yes\n")

	items := differ(t, gitDir, false)
	for _, want := range []string{"trailingslash", "starstar", "relativepattern", "icase", "onestar", "dotslash"} {
		if !hasItem(items, "global", "from."+want, "yes") && !hasItem(items, "local", "from."+want, "yes") {
			t.Errorf("the layout does not exercise from.%s (git did not include it)", want)
		}
	}
	if !hasItem(items, "global", "user.email", "deep@example.com") {
		t.Error("the layout does not exercise a relative include two levels down")
	}
	// Outside any repository the gitdir conditions do not hold.
	differ(t, "", false)

	// A repository under $HOME, for "~/".
	under := filepath.Join(home, "work", "r")
	git(t, home, "init", "-q", under)
	items = differ(t, filepath.Join(under, ".git"), false)
	if !hasItem(items, "global", "from.underhome", "yes") {
		t.Errorf("gitdir:~/ did not match a repository under HOME: %s", showItems(items))
	}
}

func TestReaderSymlinkedRepository(t *testing.T) {
	home := sandbox(t)
	repo := newRepo(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Dir(repo), link); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(link, filepath.Base(repo))
	write(t, filepath.Join(home, ".gitconfig"),
		"[includeIf \"gitdir:"+linked+"/\"]\n\tpath = by-link\n"+
			"[includeIf \"gitdir:"+repo+"/\"]\n\tpath = by-real\n")
	write(t, filepath.Join(home, "by-link"), "[from]\n\tlink = yes\n")
	write(t, filepath.Join(home, "by-real"), "[from]\n\treal = yes\n")
	items := differ(t, filepath.Join(linked, ".git"), false)
	if !hasItem(items, "global", "from.link", "yes") || !hasItem(items, "global", "from.real", "yes") {
		t.Errorf("git matched neither path form: %s", showItems(items))
	}
}

func TestReaderSyntax(t *testing.T) {
	home := sandbox(t)
	repo := newRepo(t)
	write(t, filepath.Join(home, ".gitconfig"), "# comments\n; and another\n"+
		"[Reason]\n\tProfile = \"quoted \\\"inner\\\" value\"  # comment\n"+
		"\tdisable = a   b ; comment\n"+
		"[bools]\n\tyes = yes\n\ton = on\n\tone = 1\n\ttrue = true\n\tno = no\n\toff = off\n\tzero = 0\n\tfalse = false\n\tbare\n\tempty =\n\tquotedEmpty = \"\"\n"+
		"[escapes]\n\ttab = a\\tb\n\tnewline = a\\nb\n\tbackspace = a\\bb\n\tbackslash = a\\\\b\n\thash = \"a # b\"\n\tsemi = \"a ; b\"\n"+
		"\tquotedSpaces = \"  kept  \"\n\tmixed = x\"  y  \"z\n"+
		"[remote \"Up Stream\"]\n\turl = https://example.invalid/a.git\n"+
		"[branch \"with \\\"quote\\\" and \\\\ back\"]\n\treasonTask = T\n"+
		"[dash-section \"x\"]\n\tdash-key2 = v\n"+
		"[crlf]\r\n\tkey = value\r\n\tquoted = \"a\"\r\n")
	items := differ(t, filepath.Join(repo, ".git"), false)
	if !hasItem(items, "global", "escapes.mixed", "x  y  z") || !hasItem(items, "global", "reason.disable", "a   b") ||
		!hasItem(items, "global", `branch.with "quote" and \ back.reasontask`, "T") {
		t.Errorf("quoted and unquoted spaces: %s", showItems(items))
	}
}

// TestReaderLeavesToGit: the forms gcfg refuses or reads otherwise than
// git are left to git, and Load reads them as git does.
func TestReaderLeavesToGit(t *testing.T) {
	for _, tc := range []struct{ name, text, key, want string }{
		{"byte-order mark", "\xef\xbb\xbf[a]\n\tk = bom\n", "a.k", "bom"},
		{"variable on the header's line", "[a] k = same line\n", "a.k", "same line"},
		{"legacy subsection", "[Section.SubSection]\n\tkey = legacy\n", "section.subsection.key", "legacy"},
		{"continued line", "[a]\n\tk = first \\\n  second\n", "a.k", "first   second"},
		{"tab inside a value", "[a]\n\tk = x \t y\n", "a.k", "x   y"},
		{"empty subsection", "[a \"\"]\n\tk = v\n", "a..k", "v"},
		{"unknown escape in a subsection", "[a \"b\\x\"]\n\tk = v\n", "a.bx.k", "v"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := sandbox(t)
			repo := newRepo(t)
			write(t, filepath.Join(home, ".gitconfig"), tc.text)
			if items := differ(t, filepath.Join(repo, ".git"), true); !hasItem(items, "global", tc.key, tc.want) {
				t.Errorf("git read %s", showItems(items))
			}
		})
	}
}

// TestReaderRefusedSyntax: what git refuses is never read in-process; Load
// gives git's own message.
func TestReaderRefusedSyntax(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"unclosed header", "[core\n"},
		{"unknown escape", "[a]\n\tb = x\\qy\n"},
		{"unclosed quote", "[a]\n\tb = \"x\n"},
		{"key without section", "b = c\n"},
		{"bad key", "[a]\n\t1b = c\n"},
		{"comment after bare key", "[a]\n\tb # c\n"},
		{"comment holding = after bare key", "[a]\n\tb ;c=d\n"},
		{"newline in subsection", "[a \"b\n\"]\n"},
		{"partial byte-order mark", "\xef\xbbx[a]\n"},
		{"extended header without quote", "[a b]\n"},
		{"non-ASCII variable name", "[a]\n\tk\xc3\xa9 = v\n"},
		{"non-ASCII section name", "[\xc3\xa9]\n\tk = v\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := sandbox(t)
			repo := newRepo(t)
			write(t, filepath.Join(home, ".gitconfig"), tc.text)
			differ(t, filepath.Join(repo, ".git"), true)
		})
	}
}

func TestReaderIncludeLimits(t *testing.T) {
	t.Run("loop", func(t *testing.T) {
		home := sandbox(t)
		repo := newRepo(t)
		write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = loop\n")
		write(t, filepath.Join(home, "loop"), "[a]\n\tb = c\n[include]\n\tpath = loop\n")
		differ(t, filepath.Join(repo, ".git"), true)
	})
	t.Run("ten deep", func(t *testing.T) {
		home := sandbox(t)
		repo := newRepo(t)
		write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = d1\n")
		for i := 1; i <= maxIncludeDepth; i++ {
			write(t, filepath.Join(home, fmt.Sprintf("d%d", i)), fmt.Sprintf("[depth]\n\tv = %d\n[include]\n\tpath = d%d\n", i, i+1))
		}
		items := differ(t, filepath.Join(repo, ".git"), false)
		if !hasItem(items, "global", "depth.v", "10") {
			t.Errorf("depth 10 not reached: %s", showItems(items))
		}
	})
	t.Run("eleven deep", func(t *testing.T) {
		home := sandbox(t)
		repo := newRepo(t)
		write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = d1\n")
		for i := 1; i <= maxIncludeDepth+1; i++ {
			write(t, filepath.Join(home, fmt.Sprintf("d%d", i)), fmt.Sprintf("[depth]\n\tv = %d\n[include]\n\tpath = d%d\n", i, i+1))
		}
		differ(t, filepath.Join(repo, ".git"), true)
	})
	t.Run("relative include from the command line", func(t *testing.T) {
		sandbox(t)
		repo := newRepo(t)
		t.Setenv("GIT_CONFIG_PARAMETERS", "'include.path'='relative'")
		differ(t, filepath.Join(repo, ".git"), true)
	})
	t.Run("include of a device", func(t *testing.T) {
		// A repository's config naming /dev/zero must not make the reader
		// read without end; git is asked (and refuses the NUL bytes).
		sandbox(t)
		repo := newRepo(t)
		git(t, repo, "config", "include.path", "/dev/zero")
		if _, err := readConfig(filepath.Join(repo, ".git"), os.LookupEnv); !errors.Is(err, errAskGit) {
			t.Fatalf("include of /dev/zero: %v", err)
		}
	})
	t.Run("include of a directory", func(t *testing.T) {
		home := sandbox(t)
		repo := newRepo(t)
		write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = "+repo+"\n")
		differ(t, filepath.Join(repo, ".git"), true)
	})
	t.Run("include without value", func(t *testing.T) {
		home := sandbox(t)
		repo := newRepo(t)
		write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath\n")
		differ(t, filepath.Join(repo, ".git"), true)
	})
}

func TestReaderCommandLine(t *testing.T) {
	home := sandbox(t)
	repo := newRepo(t)
	git(t, repo, "config", "reason.profile", "local")
	write(t, filepath.Join(home, "extra"), "[core]\n\thooksPath = from-extra\n")
	write(t, filepath.Join(home, "tilde"), "[from]\n\ttilde = yes\n")
	params := gitParameters(t, repo, "reason.profile=from-c", "include.path="+filepath.Join(home, "extra"),
		"include.path=~/tilde", "safe.directory=/from/c", "user.name=It's 'quoted' ! too", "Core.Pager=less -R",
		"remote.Sub.Name.url=with=equals", "bools.implicit", "bools.empty=", "branch.Feature/X.reasonTask=T")
	t.Setenv("GIT_CONFIG_PARAMETERS", params)
	t.Setenv("GIT_CONFIG_COUNT", "2")
	t.Setenv("GIT_CONFIG_KEY_0", "Reason.Disable")
	t.Setenv("GIT_CONFIG_VALUE_0", "c,d")
	t.Setenv("GIT_CONFIG_KEY_1", "user.email")
	t.Setenv("GIT_CONFIG_VALUE_1", "")
	items := differ(t, filepath.Join(repo, ".git"), false)
	if !hasItem(items, "command", "core.hookspath", "from-extra") || !hasItem(items, "command", "from.tilde", "yes") {
		t.Errorf("includes from the command line: %s", showItems(items))
	}

	// The old form, 'key=value', which scripts still pass.
	t.Setenv("GIT_CONFIG_COUNT", "")
	t.Setenv("GIT_CONFIG_PARAMETERS", "'reason.profile=old' 'user.name= spaced '  'bools.x'")
	differ(t, filepath.Join(repo, ".git"), false)

	for _, bogus := range []string{"'unterminated", "'a.b'x", "'a.b'='c'd", "noquote", "'nodot=x'", "'a.1b=x'"} {
		t.Setenv("GIT_CONFIG_PARAMETERS", bogus)
		differ(t, filepath.Join(repo, ".git"), true)
	}
	t.Setenv("GIT_CONFIG_PARAMETERS", "")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	os.Unsetenv("GIT_CONFIG_KEY_0")
	differ(t, filepath.Join(repo, ".git"), true)
	t.Setenv("GIT_CONFIG_COUNT", "x")
	differ(t, filepath.Join(repo, ".git"), true)
}

func TestReaderEnvironment(t *testing.T) {
	home := sandbox(t)
	repo := newRepo(t)
	gitDir := filepath.Join(repo, ".git")
	write(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = from-home\n")
	write(t, filepath.Join(home, ".config", "git", "config"), "[user]\n\tname = from-default-xdg\n\temail = x@example.com\n")
	items := differ(t, gitDir, false)
	if !hasItem(items, "global", "user.email", "x@example.com") {
		t.Errorf("~/.config/git/config not read: %s", showItems(items))
	}

	xdg := filepath.Join(home, "xdg")
	write(t, filepath.Join(xdg, "git", "config"), "[user]\n\temail = xdg@example.com\n")
	t.Setenv("XDG_CONFIG_HOME", xdg)
	differ(t, gitDir, false)

	write(t, filepath.Join(home, "global-only"), "[reason]\n\tprofile = global-only\n")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "global-only"))
	differ(t, gitDir, false)
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	differ(t, gitDir, false)
	os.Unsetenv("GIT_CONFIG_GLOBAL")

	system := filepath.Join(home, "system")
	write(t, system, "[safe]\n\tdirectory = /system\n[include]\n\tpath = system-inc\n")
	write(t, filepath.Join(home, "system-inc"), "[safe]\n\tdirectory = /system-included\n")
	t.Setenv("GIT_CONFIG_SYSTEM", system)
	for _, v := range []string{"", "0", "false", "no", "off"} {
		t.Setenv("GIT_CONFIG_NOSYSTEM", v)
		items := differ(t, gitDir, false)
		if !hasItem(items, "system", "safe.directory", "/system-included") {
			t.Errorf("GIT_CONFIG_NOSYSTEM=%q: system file not read: %s", v, showItems(items))
		}
	}
	for _, v := range []string{"1", "true", "yes", "on"} {
		t.Setenv("GIT_CONFIG_NOSYSTEM", v)
		if items := differ(t, gitDir, false); hasItem(items, "system", "safe.directory", "/system") {
			t.Errorf("GIT_CONFIG_NOSYSTEM=%q: system file read", v)
		}
	}
	t.Setenv("GIT_CONFIG_NOSYSTEM", "maybe")
	differ(t, gitDir, true)

	// The build's own system file: read in-process where the reader knows
	// where this git keeps it (a git in /usr on Linux), else by git.
	t.Setenv("GIT_CONFIG_NOSYSTEM", "")
	os.Unsetenv("GIT_CONFIG_SYSTEM")
	_, err := readConfig(gitDir, os.LookupEnv)
	if errors.Is(err, errAskGit) {
		t.Logf("the system file of this git is left to git")
	}
	differ(t, gitDir, errors.Is(err, errAskGit))

	// No HOME: no global files.
	os.Unsetenv("XDG_CONFIG_HOME")
	t.Setenv("HOME", "")
	os.Unsetenv("HOME")
	differ(t, gitDir, false)
}

func TestReaderOnBranch(t *testing.T) {
	home := sandbox(t)
	repo := newRepo(t)
	gitDir := filepath.Join(repo, ".git")
	write(t, filepath.Join(home, ".gitconfig"),
		"[includeIf \"onbranch:main\"]\n\tpath = main\n"+
			"[includeIf \"onbranch:feature/\"]\n\tpath = feature\n"+
			"[includeIf \"onbranch:fea*\"]\n\tpath = star\n"+
			"[includeIf \"onbranch:**/x\"]\n\tpath = starstar\n")
	for _, f := range []string{"main", "feature", "star", "starstar"} {
		write(t, filepath.Join(home, f), "[from]\n\t"+f+" = yes\n")
	}
	items := differ(t, gitDir, false) // unborn main
	if !hasItem(items, "global", "from.main", "yes") {
		t.Errorf("unborn branch main: %s", showItems(items))
	}
	git(t, repo, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "one")
	git(t, repo, "checkout", "-q", "-b", "feature/x")
	items = differ(t, gitDir, false)
	if !hasItem(items, "global", "from.feature", "yes") || !hasItem(items, "global", "from.starstar", "yes") {
		t.Errorf("branch feature/x: %s", showItems(items))
	}
	git(t, repo, "checkout", "-q", "--detach")
	differ(t, gitDir, false)
}

func TestReaderHasConfigRemoteURL(t *testing.T) {
	home := sandbox(t)
	repo := newRepo(t)
	gitDir := filepath.Join(repo, ".git")
	write(t, filepath.Join(home, ".gitconfig"),
		"[includeIf \"hasconfig:remote.*.url:https://example.invalid/**\"]\n\tpath = matched\n"+
			"[includeIf \"hasconfig:remote.*.url:git@*\"]\n\tpath = unmatched\n")
	write(t, filepath.Join(home, "matched"), "[from]\n\tmatched = yes\n")
	write(t, filepath.Join(home, "unmatched"), "[from]\n\tunmatched = yes\n")
	git(t, repo, "remote", "add", "origin", "https://example.invalid/team/repo.git")
	items := differ(t, gitDir, false)
	if !hasItem(items, "global", "from.matched", "yes") || hasItem(items, "global", "from.unmatched", "yes") {
		t.Errorf("hasconfig: %s", showItems(items))
	}
	// A URL set in a file such a condition includes is refused by git.
	write(t, filepath.Join(home, "matched"), "[remote \"sneaky\"]\n\turl = git@example.invalid:x\n")
	differ(t, gitDir, true)
}

func TestReaderWorktreeConfig(t *testing.T) {
	home := sandbox(t)
	repo := newRepo(t)
	wt := linkedWorktree(t, repo)
	git(t, wt, "config", "--worktree", "reason.profile", "wt-only")
	git(t, wt, "config", "--worktree", "include.path", "wt-inc")
	wtGitDir := git(t, wt, "rev-parse", "--absolute-git-dir")
	write(t, filepath.Join(wtGitDir, "wt-inc"), "[from]\n\twtinc = yes\n")
	write(t, filepath.Join(home, ".gitconfig"), "[includeIf \"gitdir:"+wtGitDir+"\"]\n\tpath = wt-gitdir\n")
	write(t, filepath.Join(home, "wt-gitdir"), "[from]\n\twtgitdir = yes\n")
	items := differ(t, wtGitDir, false)
	if !hasItem(items, "worktree", "reason.profile", "wt-only") || !hasItem(items, "worktree", "from.wtinc", "yes") ||
		!hasItem(items, "global", "from.wtgitdir", "yes") {
		t.Errorf("linked worktree: %s", showItems(items))
	}
	differ(t, filepath.Join(repo, ".git"), false)
	// Without the extension config.worktree is not read.
	git(t, repo, "config", "--unset", "extensions.worktreeConfig")
	differ(t, wtGitDir, false)
}

// TestReaderSafeDirectoryScopes: the scopes the ownership check relies on
// come out of the in-process reader as git lists them (a repository's own
// safe.directory is "local", which resolve ignores).
func TestReaderSafeDirectoryScopes(t *testing.T) {
	home := sandbox(t)
	repo := newRepo(t)
	write(t, filepath.Join(home, ".gitconfig"), "[safe]\n\tdirectory = /global\n[include]\n\tpath = more\n")
	write(t, filepath.Join(home, "more"), "[safe]\n\tdirectory = /included\n")
	git(t, repo, "config", "safe.directory", "*")
	git(t, repo, "config", "include.path", filepath.Join(home, "more"))
	items := differ(t, filepath.Join(repo, ".git"), false)
	if !hasItem(items, "local", "safe.directory", "*") || !hasItem(items, "local", "safe.directory", "/included") {
		t.Fatalf("the layout lacks repository values: %s", showItems(items))
	}
	if got := load(t, filepath.Join(repo, ".git")).SafeDirectories; !reflect.DeepEqual(got, []string{"/global", "/included"}) {
		t.Errorf("safe directories %q", got)
	}
}

// TestParserAgainstGit generates config files from fragments at random and
// compares the parser with git config --file --no-includes on each: where
// git reads a file the parser reads it the same or leaves it to git, and
// where git refuses one the parser refuses it too.
func TestParserAgainstGit(t *testing.T) {
	sandbox(t)
	fragments := []string{
		"[a]\n", "[A \"Sub\"]\n", "[a \"s\\\"q\"]\n", "[a.B]\n", "[a] ", "[a \"x\"] ", "[",
		"k = v\n", "K = \"q # x\"\n", "k=v;c\n", "k\n", "k =\n", "k = a\\\n b\n", "k = \"a\\\n b\"\n",
		"k = \\t\\n\\b\\\\\\\"\n", "k = \\x\n", "k = \"open\n", "k = a \t  b  \n", "k = \"  a  \"  \n",
		"# c\n", "; c\n", "\n", "\r\n", "k = v\r\n", "k-2 = v\n", "2k = v\n", "k # c\n", "\t k = v\n",
		"k = a\"b\"c\n", "k = \"\"\n", "k = x\r y\n", "k\t=\ty\n", "k\r\n", "[b]\r\n", "k = \xc3\xa9\n",
		"k\xc3\xa9 = v\n", "[\xc3\xa9]\n", "[b\xd9\xa1 \"x\"]\n",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 300
	if testing.Short() {
		n = 60
	}
	dir := t.TempDir()
	agreed, refused, left := 0, 0, 0
	for i := range n {
		var b strings.Builder
		if rng.IntN(3) > 0 {
			b.WriteString("[s]\n")
		}
		for range 1 + rng.IntN(8) {
			b.WriteString(fragments[rng.IntN(len(fragments))])
		}
		if rng.IntN(4) == 0 {
			s := b.String()
			b.Reset()
			b.WriteString(strings.TrimSuffix(s, "\n"))
		}
		parsed, gitReads := parseAgainstGit(t, filepath.Join(dir, fmt.Sprintf("c%d", i)), b.String())
		switch {
		case parsed && gitReads:
			agreed++
		case gitReads:
			left++ // a form gcfg refuses or reads otherwise (parseConfig)
		default:
			refused++ // refused by both
		}
	}
	t.Logf("%d files: %d read alike, %d refused by both, %d that git reads left to git", n, agreed, refused, left)
	// Each file read alike or refused alike holds the parser to git; a
	// file left to git holds it to nothing. The parser leaves whole
	// classes of files to git (parseConfig), so it is the share compared
	// that must stay high, and enough files must be read.
	if agreed+refused < n/2 || agreed < n/8 {
		t.Errorf("only %d of %d generated files read alike and %d refused alike: the generator tests too little", agreed, n, refused)
	}
}

// TestParserAgainstGitCharacters is TestParserAgainstGit one character
// at a time: files that start as a header, a variable or nothing, then
// run on with characters and line ends drawn at random, non-ASCII and
// control characters among them, compared with git config in the same
// way. It found the names gcfg takes that git refuses and what may
// follow a variable's name.
func TestParserAgainstGitCharacters(t *testing.T) {
	sandbox(t)
	starts := []string{"[s]\nk = ", "[s \"", "[", "", "[s]\n"}
	chars := []string{"[", "]", "\"", "\\", "=", "#", ";", "\t", "\n", "\r\n", " ", "a", "B", "1", "-", ".",
		"\xc3\xa9", "x", "\n[s]\n", "\nk = ", "\f", "\v", "_", "'", "\x7f", "\x01"}
	rng := rand.New(rand.NewPCG(17, 19))
	n := 400
	if testing.Short() {
		n = 80
	}
	dir := t.TempDir()
	read := 0
	for i := range n {
		var b strings.Builder
		b.WriteString(starts[rng.IntN(len(starts))])
		for range 1 + rng.IntN(8) {
			b.WriteString(chars[rng.IntN(len(chars))])
		}
		b.WriteString("\n")
		if parsed, gitReads := parseAgainstGit(t, filepath.Join(dir, fmt.Sprintf("c%d", i)), b.String()); parsed && gitReads {
			read++
		}
	}
	t.Logf("%d files, %d read in-process and compared", n, read)
	if read < n/10 {
		t.Errorf("only %d of %d generated files were read in-process: the generator tests too little", read, n)
	}
}

// parseAgainstGit writes text to path and reads it with the parser and
// with git config --file: a file the parser reads, git must read, and to
// the same list. It reports whether each read it.
func parseAgainstGit(t *testing.T, path, text string) (parsed, gitReads bool) {
	t.Helper()
	write(t, path, text)
	out, gitErr := exec.Command("git", "config", "--file", path, "--no-includes", "-z", "--list").Output()
	vars, ok := parseConfig([]byte(text))
	switch {
	case ok && gitErr != nil:
		t.Errorf("git refuses %q, the parser read %+v", text, vars)
	case ok:
		gitItems, err := parseList(scoped(out))
		if err != nil {
			t.Fatal(err)
		}
		var got []item
		for _, v := range vars {
			got = append(got, item{scope: "file", key: v.key, value: v.value, hasValue: v.hasValue})
		}
		if !reflect.DeepEqual(got, gitItems) {
			t.Errorf("%q:\n got %s\nwant %s", text, showItems(got), showItems(gitItems))
		}
	}
	return ok, gitErr == nil
}

// scoped prefixes each entry of git config -z --list with a scope, as
// --show-scope would (git refuses --show-scope with --file in some
// versions' output forms; the file has one scope anyway).
func scoped(out []byte) []byte {
	var b []byte
	for len(out) > 0 {
		i := 0
		for i < len(out) && out[i] != 0 {
			i++
		}
		b = append(b, "file\x00"...)
		b = append(b, out[:i]...)
		b = append(b, 0)
		if i < len(out) {
			i++
		}
		out = out[i:]
	}
	return b
}

func TestWildmatch(t *testing.T) {
	for _, tc := range []struct {
		pat, text      string
		pathname, fold bool
		want           bool
	}{
		{"**/x", "x", true, false, true},
		{"**/x", "a/b/x", true, false, true},
		{"a/**/b", "a/b", true, false, true},
		{"a/**/b", "a/x/y/b", true, false, true},
		{"a/**", "a/x/y", true, false, true},
		{"a/*", "a/x/y", true, false, false},
		{"a/*", "a/x/y", false, false, true},
		{"a**b", "a/b", true, false, false},
		{"a**b", "axxb", true, false, true},
		{"a?b", "a/b", true, false, false},
		{"a?b", "a/b", false, false, true},
		{"A/B", "a/b", true, true, true},
		{"\\A/B", "a/b", true, true, false},
		{"a\\*b", "a*b", true, false, true},
		{"a\\*b", "axb", true, false, false},
		{"/x/**", "/x/", true, false, true},
		{"*", "", true, false, true},
		{"?", "", true, false, false},
	} {
		got, ok := wildmatch(tc.pat, tc.text, tc.pathname, tc.fold)
		if !ok || got != tc.want {
			t.Errorf("wildmatch(%q, %q, pathname %v, fold %v) = %v, %v; want %v", tc.pat, tc.text, tc.pathname, tc.fold, got, ok, tc.want)
		}
	}
	if _, ok := wildmatch("[ab]", "a", true, false); ok {
		t.Error("a bracket expression was matched, not left to git")
	}
}
