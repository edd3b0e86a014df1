package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// parseList renders data the way `git config --list` does.
func parseList(data string) (string, error) {
	var b strings.Builder
	err := parseConfig([]byte(data), func(ev configEvent) error {
		if ev.name == "" {
			return nil
		}
		b.WriteString(ev.key())
		if ev.hasValue {
			b.WriteString("=" + ev.value)
		}
		b.WriteString("\n")
		return nil
	})
	return strings.TrimRight(b.String(), "\n"), err
}

func TestParseConfigMatchesGit(t *testing.T) {
	sandboxGit(t)
	dir := t.TempDir()
	for name, content := range map[string]string{
		"basic":        "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n",
		"comments":     "# top\n; also\n[core] ; trailing\n\tbare = false # why\n\tx = a;b\n",
		"quotes":       "[a]\n\tq = \"  spaced # not a comment ; \"  \n\tmix = pre\"  in  \"post\n",
		"escapes":      "[a]\n\te = tab\\there\\nnl \\\"q\\\" back\\\\slash\n",
		"continuation": "[a]\n\tlong = one \\\n   two\\\n\tthree\n",
		"whitespace":   "[a]\n\tw =   lots   of \t space   \n",
		"valueless":    "[reason]\n\tdisable\n\tempty =\n\tafter = 1\n",
		"subsection":   "[remote \"Origin\"]\n\turl = u1\n[remote \"origin\"]\n\turl = u2\n[Remote \"wi\\\"th\\\\esc\"]\n\tURL = u3\n",
		"legacy":       "[Branch.Main]\n\tremote = origin\n",
		"same line":    "[a] k = v\n[b]k2=v2",
		"no section":   "k = top\n[a]\n\tx = 1\n",
		"crlf":         "[a]\r\n\tk = v\r\n\tq = \"x\"\r\n",
		"bom":          "\xef\xbb\xbf[a]\n\tk = v\n",
		"case":         "[SeCtIoN]\n\tKeY = Value\n\tkey = Other\n",
		"no newline":   "[a]\n\tk = last",
		"dashes":       "[my-sec]\n\tsome-key2 = v\n",
		"empty":        "",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
			writeTestFile(t, p, content)
			want := gitIn(t, dir, "config", "--file", p, "--no-includes", "--list")
			got, err := parseList(content)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("parse of %q\n got %q\nwant %q", content, got, want)
			}
		})
	}
}

func TestParseConfigRejectsWhatGitRejects(t *testing.T) {
	sandboxGit(t)
	dir := t.TempDir()
	for i, content := range []string{
		"[unterminated\n\tk = v\n",
		"[a]\n\tk = \"open\n",
		"[a]\n\tk = bad\\escape\n",
		"[a]\n\t1key = v\n",
		"[a \"sub]\n",
		"[a]\n\tk v\n",
		"[a]\n\tk_x = v\n",
	} {
		p := filepath.Join(dir, fmt.Sprint(i))
		writeTestFile(t, p, content)
		if _, err := gitTryIn(dir, "config", "--file", p, "--list"); err == nil {
			t.Fatalf("git accepts %q; the case is wrong", content)
		}
		if got, err := parseList(content); err == nil {
			t.Errorf("parse of %q succeeded: %q", content, got)
		}
	}
}

func TestConfigScopesMatchGit(t *testing.T) {
	home := sandboxGit(t)
	repo := newTestRepo(t)
	gitIn(t, repo, "sparse-checkout", "init") // extensions.worktreeConfig
	r := discoverT(t, repo)

	sys := filepath.Join(home, "system.gitconfig")
	writeTestFile(t, sys, "[reason]\n\tmulti = system\n\tscope = system\n[user]\n\tname = System\n")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "")
	t.Setenv("GIT_CONFIG_SYSTEM", sys)
	xdg := filepath.Join(home, "xdg")
	t.Setenv("XDG_CONFIG_HOME", xdg)
	writeTestFile(t, filepath.Join(xdg, "git", "config"), "[reason]\n\tmulti = xdg\n\tscope = xdg\n")
	writeTestFile(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = Global\n\temail = g@example.com\n"+
		"[include]\n\tpath = inc/extra.inc\n"+
		"[includeIf \"gitdir:"+filepath.Dir(repo)+"/\"]\n\tpath = ~/matched.inc\n"+
		"[includeIf \"gitdir:/nowhere/\"]\n\tpath = ~/unmatched.inc\n"+
		"[includeIf \"onbranch:main\"]\n\tpath = ~/branch.inc\n"+
		"[reason]\n\tmulti = global\n")
	writeTestFile(t, filepath.Join(home, "inc", "extra.inc"), "[reason]\n\tincluded = yes\n\tmulti = included\n[include]\n\tpath = nested.inc\n")
	writeTestFile(t, filepath.Join(home, "inc", "nested.inc"), "[reason]\n\tnested = deep\n")
	writeTestFile(t, filepath.Join(home, "matched.inc"), "[reason]\n\tgitdir = matched\n")
	writeTestFile(t, filepath.Join(home, "unmatched.inc"), "[reason]\n\tgitdir = wrong\n\tunmatched = yes\n")
	writeTestFile(t, filepath.Join(home, "branch.inc"), "[reason]\n\tbranch = main\n")
	gitIn(t, repo, "config", "--add", "reason.multi", "local")
	gitIn(t, repo, "config", "user.name", "Local")
	gitIn(t, repo, "config", "remote.Origin.url", "upper")
	gitIn(t, repo, "config", "remote.origin.url", "lower")
	gitIn(t, repo, "config", "--worktree", "reason.scope", "worktree")
	t.Setenv("GIT_CONFIG_COUNT", "2")
	t.Setenv("GIT_CONFIG_KEY_0", "reason.multi")
	t.Setenv("GIT_CONFIG_VALUE_0", "env")
	t.Setenv("GIT_CONFIG_KEY_1", "reason.envonly")
	t.Setenv("GIT_CONFIG_VALUE_1", "it's here")
	t.Setenv("GIT_CONFIG_PARAMETERS", `'reason.multi'='param' 'reason.quoted'='it'\''s' 'reason.old=style' 'reason.flag'`)

	c, err := r.Config()
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{
		"user.name", "USER.Name", "user.email", "reason.multi", "reason.scope", "reason.included",
		"reason.nested", "reason.gitdir", "reason.unmatched", "reason.branch", "reason.envonly",
		"reason.quoted", "reason.old", "reason.flag", "remote.Origin.url", "remote.origin.url",
		"REMOTE.origin.URL", "remote.ORIGIN.url", "core.sparseCheckout", "extensions.worktreeConfig",
		"reason.absent",
	} {
		out, gerr := gitTryIn(repo, "config", "--get-all", key)
		var want []string
		if gerr == nil {
			want = strings.Split(out, "\n")
		}
		got := c.GetAll(key)
		if key == "reason.flag" && len(want) == 1 && want[0] == "" {
			want = []string{"true"} // valueless: documented to read as "true"
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("GetAll(%s) = %q, git says %q", key, got, want)
		}
		v, ok := c.Get(key)
		if ok != (len(want) > 0) || ok && v != want[len(want)-1] {
			t.Errorf("Get(%s) = %q, %v", key, v, ok)
		}
	}
}

func TestConfigGlobalOverride(t *testing.T) {
	home := sandboxGit(t)
	r := discoverT(t, newTestRepo(t))
	g := filepath.Join(home, "only.gitconfig")
	writeTestFile(t, g, "[user]\n\temail = only@example.com\n")
	t.Setenv("GIT_CONFIG_GLOBAL", g)
	c, err := r.Config()
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Get("user.email"); v != "only@example.com" {
		t.Errorf("user.email = %q", v)
	}
	if v, ok := c.Get("user.name"); ok {
		t.Errorf("~/.gitconfig read despite GIT_CONFIG_GLOBAL: user.name = %q", v)
	}
	writeTestFile(t, filepath.Join(r.CommonDir, "config"), "[core]\n\tbare = maybe\n")
	if _, err := c.Bool("core.bare"); err != nil {
		t.Errorf("Bool on a good config: %v", err)
	}
	c, _ = r.Config()
	if _, err := c.Bool("core.bare"); err == nil {
		t.Errorf("Bool(%q) accepted a non-boolean", "maybe")
	}
	writeTestFile(t, filepath.Join(r.CommonDir, "config"), "[core\n")
	if _, err := r.Config(); err == nil {
		t.Error("a broken repository config was accepted")
	}
}

func TestSetLocalOnce(t *testing.T) {
	sandboxGit(t)
	repo := newTestRepo(t)
	r := discoverT(t, repo)
	gitIn(t, repo, "config", "reason.keep", "kept")
	for key, value := range map[string]string{
		"reason.origin":         "01HZX",
		"reason.tricky":         ` lead "quoted" back\slash # hash; semi	tab `,
		"reason.Sub Section.id": "sub",
		"newsec.x":              "new",
	} {
		got, err := r.SetLocalOnce(key, value)
		if err != nil {
			t.Fatal(err)
		}
		if got != value {
			t.Errorf("SetLocalOnce(%s) = %q, want %q", key, got, value)
		}
		if g := gitIn(t, repo, "config", "--local", "--get-all", key); g != value {
			t.Errorf("git config %s = %q, want %q", key, g, value)
		}
	}
	if got, err := r.SetLocalOnce("reason.origin", "second"); err != nil || got != "01HZX" {
		t.Errorf("second SetLocalOnce = %q, %v; want the first value", got, err)
	}
	if g := gitIn(t, repo, "config", "reason.keep"); g != "kept" {
		t.Errorf("existing key lost: %q", g)
	}
	if n := strings.Count(gitIn(t, repo, "config", "--local", "--list"), "reason.origin="); n != 1 {
		t.Errorf("reason.origin appears %d times", n)
	}
	if _, err := r.SetLocalOnce("bad key.x y", "v"); err == nil {
		t.Error("an invalid key was accepted")
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "config.lock")); err == nil {
		t.Error("config.lock left behind")
	}
}

func TestSetLocalOnceConcurrent(t *testing.T) {
	sandboxGit(t)
	repo := newTestRepo(t)
	r := discoverT(t, repo)
	const n = 12
	results := make([]string, n)
	var wg sync.WaitGroup
	var gitWrites sync.Map // values git config reported as written
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			v, err := r.SetLocalOnce("reason.origin", fmt.Sprintf("origin-%d", i))
			if err != nil {
				t.Error(err)
			}
			results[i] = v
		}()
		go func() { // git's own writers use the same config.lock
			defer wg.Done()
			v := fmt.Sprintf("noise-%d", i)
			for try := 0; ; try++ { // git config does not wait for the lock
				out, err := gitTryIn(repo, "config", "--add", "reason.noise", v)
				if err == nil {
					gitWrites.Store(v, true)
					return
				}
				if !strings.Contains(out, "could not lock") || try == 200 {
					t.Errorf("git config --add: %v: %s", err, out)
					return
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	final := gitIn(t, repo, "config", "--get-all", "reason.origin")
	if strings.Contains(final, "\n") {
		t.Fatalf("several values written: %q", final)
	}
	for i, v := range results {
		if v != final {
			t.Errorf("caller %d got %q, config holds %q", i, v, final)
		}
	}
	noise := gitIn(t, repo, "config", "--get-all", "reason.noise")
	written := 0
	gitWrites.Range(func(k, _ any) bool {
		written++
		if !strings.Contains(noise+"\n", k.(string)+"\n") {
			t.Errorf("git's write of %s was lost", k)
		}
		return true
	})
	if written != n {
		t.Errorf("%d of %d git config writes went through", written, n)
	}
}
