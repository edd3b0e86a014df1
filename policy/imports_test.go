package policy

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// This file holds the design's purity rules by reading the import graph of
// the module's own source (non-test .go files, every build tag, parsed with
// go/parser; no go command, no network).
//
// policy: an allowlist. Only the pure standard packages below; no package
// of this module ("nothing of ours") and no third-party one. time is not on
// it: policy reads no clock, and times arrive as values (RFC 3339 strings).
// Adding a package here is a reviewed decision, not a convenience.
//
// policy/neutrality: no I/O (no os, os/exec, io/fs, path/filepath,
// syscall, network): the operations layer gathers the files and hands the
// engine their contents.
//
// record, policy and gitstore: no network. net and everything under it,
// crypto/tls, golang.org/x/net and go-git's network transports are refused,
// directly or through any package of this module they import. os/exec is
// refused in record and policy; gitstore may run the user's git (push and
// fetch go through it by design), which an import test cannot tell from
// running an advisor. Third-party packages are checked as imported, not
// followed into (their own imports are outside this module).

var pureStd = map[string]bool{
	"cmp": true, "errors": true, "fmt": true, "maps": true, "math": true, "slices": true,
	"sort": true, "strconv": true, "strings": true, "unicode": true, "unicode/utf8": true,
}

// pure refuses anything outside pureStd.
func pure(_ string, imp string) string {
	if pureStd[imp] {
		return ""
	}
	return "is not on policy's list of pure standard packages"
}

// noIO refuses the packages that reach files, processes, the network or
// the system directly: a package held to it is handed contents and paths
// and decides; its callers do the reading.
func noIO(_ string, imp string) string {
	switch {
	case imp == "os" || strings.HasPrefix(imp, "os/"), imp == "io/fs", imp == "io/ioutil",
		imp == "path/filepath", imp == "syscall", imp == "unsafe",
		imp == "golang.org/x/sys" || strings.HasPrefix(imp, "golang.org/x/sys/"):
		return "reaches files, processes or the system"
	case imp == "net" || strings.HasPrefix(imp, "net/"), imp == "crypto/tls",
		imp == "golang.org/x/net" || strings.HasPrefix(imp, "golang.org/x/net/"):
		return "is a network package"
	}
	return ""
}

// offline refuses network packages, and os/exec unless execOK.
func offline(execOK bool) func(string, string) string {
	return func(_ string, imp string) string {
		switch {
		case imp == "net" || strings.HasPrefix(imp, "net/"), imp == "crypto/tls",
			imp == "golang.org/x/net" || strings.HasPrefix(imp, "golang.org/x/net/"),
			strings.HasPrefix(imp, "github.com/go-git/go-git/v5/plumbing/transport/"):
			return "is a network package"
		case imp == "os/exec" && !execOK:
			return "runs processes"
		}
		return ""
	}
}

func TestImportGraph(t *testing.T) {
	root, mod := moduleRoot(t, "..")
	rules := []struct {
		name, pkg string
		check     func(string, string) string
	}{
		{"policy is pure", "policy", pure},
		{"policy is offline", "policy", offline(false)},
		{"record is offline", "record", offline(false)},
		{"gitstore is offline", "gitstore", offline(true)},
		{"neutrality does no I/O", "policy/neutrality", noIO},
		{"neutrality is offline", "policy/neutrality", offline(false)},
	}
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			if !hasGoFiles(filepath.Join(root, r.pkg)) {
				t.Skipf("%s has no Go files yet", r.pkg)
			}
			for _, v := range violations(t, root, mod, r.pkg, r.check) {
				t.Error(v)
			}
		})
	}
}

// The checker itself must be able to fail: a fixture module holds one
// package per kind of violation.
func TestImportCheckerFindsViolations(t *testing.T) {
	root, mod := moduleRoot(t, filepath.Join("testdata", "importgraph"))
	cases := []struct {
		pkg   string
		check func(string, string) string
		want  []string // substrings, one per expected violation
	}{
		{"pure", pure, nil}, // its _test.go imports os: ignored
		{"clock", pure, []string{`clock imports "time"`}},
		{"leaky", pure, []string{`leaky imports "os"`}},
		{"indirect", pure, []string{`indirect imports "example.test/graph/netty"`}},
		{"pure", offline(false), nil},
		{"netty", offline(false), []string{`netty imports "net/http" (netty/netty.go): is a network package`}},
		{"indirect", offline(false), []string{`indirect -> netty imports "net/http"`}},
		{"runner", offline(false), []string{`runner imports "os/exec"`}},
		{"runner", offline(true), nil},
		{"pure", noIO, nil},
		{"clock", noIO, nil},
		{"leaky", noIO, []string{`leaky imports "os"`}},
		{"runner", noIO, []string{`runner imports "os/exec"`}},
		{"indirect", noIO, []string{`indirect -> netty imports "net/http"`}},
	}
	for _, tc := range cases {
		got := violations(t, root, mod, tc.pkg, tc.check)
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %q, want %d violations", tc.pkg, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: violation %q does not say %q", tc.pkg, got[i], w)
			}
		}
	}
}

// violations walks pkg and, through module-local imports, everything of
// the module it reaches, reporting each import the check refuses with the
// chain that leads to it.
func violations(t *testing.T, root, mod, pkg string, check func(pkg, imp string) string) []string {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	var walk func(dir string, chain []string)
	walk = func(dir string, chain []string) {
		if seen[dir] {
			return
		}
		seen[dir] = true
		imports := importsOf(t, root, dir)
		for _, imp := range sortedKeys(imports) {
			local := imp == mod || strings.HasPrefix(imp, mod+"/")
			if why := check(dir, imp); why != "" {
				out = append(out, fmt.Sprintf("%s imports %q (%s): %s",
					strings.Join(append(chain, dir), " -> "), imp, imports[imp], why))
				continue
			}
			if local {
				walk(strings.TrimPrefix(strings.TrimPrefix(imp, mod), "/"), append(chain, dir))
			}
		}
	}
	walk(pkg, nil)
	return out
}

// importsOf maps each import of the non-test Go files in dir (relative to
// root) to the first file importing it, as a slash path from root.
func importsOf(t *testing.T, root, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("parse %s: %v", f, err)
		}
		for _, spec := range parsed.Imports {
			imp, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				t.Fatalf("%s: bad import %s", f, spec.Path.Value)
			}
			if _, ok := out[imp]; !ok {
				out[imp] = filepath.ToSlash(filepath.Join(dir, filepath.Base(f)))
			}
		}
	}
	return out
}

// moduleRoot returns the absolute directory of a go.mod and its module path.
func moduleRoot(t *testing.T, dir string) (string, string) {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(abs, "go.mod"))
	if err != nil {
		t.Fatalf("find module root: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return abs, strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	t.Fatalf("no module line in %s/go.mod", abs)
	return "", ""
}

func hasGoFiles(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
