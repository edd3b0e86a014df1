package ops

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"git-reason/policy/neutrality"
	"git-reason/reliability/harness"
)

// newRepo copies testdata/tree into a fresh git repository, adds what the
// tree cannot hold (a binary file, a large file, an ignored file, a
// symbolic link), commits it, and returns the repository root.
func newRepo(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range []string{"GIT_AUTHOR", "GIT_COMMITTER"} {
		t.Setenv(v+"_NAME", "Test")
		t.Setenv(v+"_EMAIL", "test@example.invalid")
		t.Setenv(v+"_DATE", "2026-01-01T00:00:00Z")
	}
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(treeDir)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "src/logo.bin", "PNG\x00\x01zeta acme_cloud")
	writeFile(t, root, "src/big.txt", strings.Repeat("zeta\n", 400))
	writeFile(t, root, ".gitignore", "/src/ignored.go\n")
	writeFile(t, root, "src/ignored.go", "var zeta = 1\n")
	if err := os.Symlink("../README.md", filepath.Join(root, "src", "link.md")); err != nil {
		t.Fatal(err)
	}
	run(t, root, "git", "init", "-q", "-b", "main")
	run(t, root, "git", "add", "-A")
	run(t, root, "git", "commit", "-q", "-m", "fixture")
	return root
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// treeDir holds the fixture tree of the neutrality checks.
var treeDir = filepath.Join("testdata", "neutrality", "tree")

// testTerms stand for the declared names.
var testTerms = []neutrality.Term{
	{Name: "Acme Cloud", DeclaredAs: "vendor acme"},
	{Name: "Zeta", DeclaredAs: "provider zeta"},
	{Name: "ace", DeclaredAs: "advisor ace"},
	{Name: "Gem", DeclaredAs: "advisor gem"},
	{Name: "x-1.5-pro", DeclaredAs: "model of vendor acme"},
}

// check scans with the fixture's configuration and terms, and renders the
// violations as the command prints them.
func check(t *testing.T, req scanRequest) (string, *neutrality.Result) {
	t.Helper()
	root := req.Root
	if root == "" {
		root = run(t, req.Dir, "git", "rev-parse", "--show-toplevel")
	}
	c, ok, err := LoadNeutralityConfig(root)
	if err != nil || !ok {
		t.Fatalf("LoadNeutralityConfig: %v, %v", ok, err)
	}
	checker, err := neutrality.NewChecker(c, testTerms)
	if err != nil {
		t.Fatal(err)
	}
	if req.MaxFileSize == 0 {
		req.MaxFileSize = 1024
	}
	res, err := scanNeutrality(context.Background(), checker, req)
	if err != nil {
		t.Fatalf("scanNeutrality: %v", err)
	}
	var b strings.Builder
	for _, v := range res.Violations {
		b.WriteString(v.String() + "\n")
	}
	return b.String(), res
}

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	harness.WriteFile(t, filepath.Join(root, filepath.FromSlash(rel)), content)
}

// committed is what the fixture tree holds, as committed.
const committed = `docs/guide.md:3:13: Orbix (declared as terms in .reason/neutrality.yaml)
docs/guide.md:3:28: Zeta (declared as provider zeta)
src/client.go:3:4: Acme Cloud (declared as vendor acme)
src/client.go:4:6: Acme Cloud (declared as vendor acme)
src/client.go:6:7: Acme Cloud (declared as vendor acme)
src/client.go:6:28: Acme Cloud (declared as vendor acme)
src/client.go:8:9: Zeta (declared as provider zeta)
src/client.go:8:33: Acme Cloud (declared as vendor acme)
src/client.go:10:5: Acme Cloud (declared as vendor acme)
src/client.go:10:28: x-1.5-pro (declared as model of vendor acme)
src/client.go:12:9: x-1.5-pro (declared as model of vendor acme)
src/client.go:12:24: ace (declared as advisor ace)
src/client.go:12:41: ace (declared as advisor ace)
src/client.go:12:50: x-1.5-pro (declared as model of vendor acme)
src/client.go:12:61: x-1.5-pro (declared as model of vendor acme)
src/hosts.go:5:14: Acme Cloud (declared as vendor acme)
`

func TestCheckWorkTree(t *testing.T) {
	root := newRepo(t)
	writeFile(t, root, "src/untracked.go", "var gem = 1\n")
	out, res := check(t, scanRequest{Root: root})
	want := committed[:strings.Index(committed, "src/hosts.go")] +
		"src/hosts.go:5:14: Acme Cloud (declared as vendor acme)\n" +
		"src/untracked.go:1:5: Gem (declared as advisor gem)\n"
	if out != want {
		t.Errorf("violations\n got:\n%s\nwant:\n%s", out, want)
	}
	// clean.go, client.go, hosts.go, untracked.go, docs/guide.md.
	if res.Files != 5 || res.Binary != 1 || res.Allowed != 1 || !res.Configured {
		t.Errorf("files %d binary %d allowed %d configured %v; want 5, 1, 1, true",
			res.Files, res.Binary, res.Allowed, res.Configured)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Path != "src/big.txt" {
		t.Errorf("skipped %v, want src/big.txt", res.Skipped)
	}
}

func TestCheckViolationText(t *testing.T) {
	root := newRepo(t)
	_, res := check(t, scanRequest{Root: root, Paths: []string{"src/client.go"}})
	var texts []string
	for _, v := range res.Violations {
		texts = append(texts, v.Text)
	}
	want := "AcmeCloud AcmeCloud ACME_CLOUD acme-cloud Zeta Acme Cloud acme_cloud X15Pro X15Pro ace ace x-1.5-pro X_1_5_PRO"
	if got := strings.Join(texts, " "); got != want {
		t.Errorf("texts\n got %s\nwant %s", got, want)
	}
}

func TestCheckPaths(t *testing.T) {
	root := newRepo(t)
	tests := []struct {
		name  string
		dir   string
		paths []string
		want  string
	}{
		{"one file", "", []string{"src/hosts.go"}, "src/hosts.go:5:14: Acme Cloud (declared as vendor acme)\n"},
		{"relative to dir", filepath.Join(root, "docs"), []string{"guide.md", "deep"}, committed[:strings.Index(committed, "src/")]},
		{"not neutral", "", []string{"README.md", "share"}, ""},
		{"excluded", "", []string{"src/adapters"}, ""},
		{"whole tree from a subdirectory", filepath.Join(root, "docs"), nil, committed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := check(t, scanRequest{Root: root, Dir: tt.dir, Paths: tt.paths})
			if out != tt.want {
				t.Errorf("violations\n got:\n%s\nwant:\n%s", out, tt.want)
			}
		})
	}
}

func TestCheckFindsRoot(t *testing.T) {
	root := newRepo(t)
	out, _ := check(t, scanRequest{Dir: filepath.Join(root, "src")})
	if out != committed {
		t.Errorf("violations\n got:\n%s\nwant:\n%s", out, committed)
	}
}

func TestCheckStagedReadsIndex(t *testing.T) {
	root := newRepo(t)
	// Staged and then cleaned in the work tree: the index still names it.
	writeFile(t, root, "src/staged.go", "var ace = 1\n")
	run(t, root, "git", "add", "src/staged.go")
	writeFile(t, root, "src/staged.go", "var count = 1\n")
	// Named in the work tree only: not staged, so not checked.
	writeFile(t, root, "src/clean.go", "var zeta = 1\n")
	writeFile(t, root, "src/untracked.go", "var zeta = 1\n")
	// Removed from the work tree but still staged.
	if err := os.Remove(filepath.Join(root, "src", "hosts.go")); err != nil {
		t.Fatal(err)
	}
	out, res := check(t, scanRequest{Root: root, Staged: true})
	want := committed + "src/staged.go:1:5: ace (declared as advisor ace)\n"
	if out != want {
		t.Errorf("violations\n got:\n%s\nwant:\n%s", out, want)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Path != "src/big.txt" || res.Binary != 1 {
		t.Errorf("skipped %v binary %d; want src/big.txt and 1", res.Skipped, res.Binary)
	}
	out, _ = check(t, scanRequest{Root: root, Staged: true, Paths: []string{"src/staged.go", "src/clean.go"}})
	if want := "src/staged.go:1:5: ace (declared as advisor ace)\n"; out != want {
		t.Errorf("violations with paths\n got:\n%s\nwant:\n%s", out, want)
	}
}

func TestCheckRangeReadsTip(t *testing.T) {
	root := newRepo(t)
	base := run(t, root, "git", "rev-parse", "HEAD")
	writeFile(t, root, "src/range.go", "var gem = 1\n")
	writeFile(t, root, "docs/guide.md", "# Guide\n")
	run(t, root, "git", "rm", "-q", "src/hosts.go")
	run(t, root, "git", "add", "-A")
	run(t, root, "git", "commit", "-q", "-m", "b")
	b := run(t, root, "git", "rev-parse", "HEAD")
	writeFile(t, root, "src/range.go", "var count = 1\n")
	run(t, root, "git", "commit", "-q", "-am", "c")
	// The work tree differs from every commit: it must not be read.
	writeFile(t, root, "src/range.go", "var zeta = 1\n")

	tests := []struct {
		spec, want string
		files      int
	}{
		{base + ".." + b, "src/range.go:1:5: Gem (declared as advisor gem)\n", 2},
		{base + "..." + b, "src/range.go:1:5: Gem (declared as advisor gem)\n", 2},
		{b + "..HEAD", "", 1},
		{base + "..HEAD", "", 2},
	}
	for _, tt := range tests {
		out, res := check(t, scanRequest{Root: root, Range: tt.spec})
		if out != tt.want || res.Files != tt.files {
			t.Errorf("range %s: %d files, violations\n%s\nwant %d files,\n%s", tt.spec, res.Files, out, tt.files, tt.want)
		}
	}
}

func TestCheckRequestErrors(t *testing.T) {
	root := newRepo(t)
	tests := []struct {
		name  string
		req   scanRequest
		usage bool
		want  string
	}{
		{"staged and range", scanRequest{Staged: true, Range: "a..b"}, true, "--staged and --range cannot be combined"},
		{"range without dots", scanRequest{Range: "HEAD"}, true, `--range "HEAD": write A..B`},
		{"range like an option", scanRequest{Range: "--output=x..y"}, true, "write A..B"},
		{"unknown revision", scanRequest{Range: "nope..HEAD"}, false, "list range nope..HEAD: git diff --raw"},
	}
	checker, err := neutrality.NewChecker(&neutrality.Config{}, testTerms)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Root = root
			_, err := scanNeutrality(context.Background(), checker, tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
			if errors.Is(err, ErrUsage) != tt.usage {
				t.Errorf("errors.Is(%v, ErrUsage) = %v, want %v", err, !tt.usage, tt.usage)
			}
		})
	}
}

func TestLoadNeutralityConfig(t *testing.T) {
	t.Run("absent", func(t *testing.T) {
		c, ok, err := LoadNeutralityConfig(t.TempDir())
		if c != nil || ok || err != nil {
			t.Errorf("LoadNeutralityConfig = %v, %v, %v; want nil, false, nil", c, ok, err)
		}
	})
	t.Run("present", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, root, neutrality.ConfigPath, "terms: [Zeta]\n")
		c, ok, err := LoadNeutralityConfig(root)
		if err != nil || !ok || !reflect.DeepEqual(c.Terms, []string{"Zeta"}) {
			t.Errorf("LoadNeutralityConfig = %+v, %v, %v; want terms [Zeta], true, nil", c, ok, err)
		}
	})
	t.Run("invalid names the file and is bad input", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, root, neutrality.ConfigPath, "terms: [Zeta]\nextra: 1\n")
		_, ok, err := LoadNeutralityConfig(root)
		want := filepath.Join(root, ".reason", "neutrality.yaml") + ":2:"
		if !ok || err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, ErrUsage) {
			t.Errorf("LoadNeutralityConfig = _, %v, %v; want true and a usage error starting %s", ok, err, want)
		}
	})
	t.Run("not a regular file", func(t *testing.T) {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, ".reason", "neutrality.yaml"), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, _, err := LoadNeutralityConfig(root); err == nil || !strings.Contains(err.Error(), "not a regular file") || !errors.Is(err, ErrUsage) {
			t.Errorf("LoadNeutralityConfig of a directory: error = %v, want a usage error saying it is not a regular file", err)
		}
	})
}

func TestCheckCancelled(t *testing.T) {
	root := newRepo(t)
	checker, err := neutrality.NewChecker(&neutrality.Config{}, testTerms)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, staged := range []bool{false, true} {
		if _, err := scanNeutrality(ctx, checker, scanRequest{Root: root, Staged: staged}); !errors.Is(err, context.Canceled) {
			t.Errorf("scan (staged %v) with a cancelled context: error %v, want context.Canceled", staged, err)
		}
	}
}
