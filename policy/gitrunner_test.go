package policy

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// gitRunner is the one file that starts git (DESIGN.md: git spoken in one
// place): every other git process goes through it.
const gitRunner = "gitstore/git/run.go"

// TestGitStartsInOnePlace holds the product code (everything but tests,
// bench/, reliability/ and testdata) to one starter of git processes: a
// call of exec.Command or exec.CommandContext whose program is "git" (a
// literal or a constant) anywhere but gitRunner fails.
func TestGitStartsInOnePlace(t *testing.T) {
	root, _ := moduleRoot(t, "..")
	found := gitStarts(t, root, func(rel string) bool {
		return rel == "bench" || rel == "reliability" || strings.HasPrefix(rel, "bench/") || strings.HasPrefix(rel, "reliability/")
	})
	var elsewhere []string
	inRunner := false
	for _, f := range found {
		if strings.HasPrefix(f, gitRunner+":") {
			inRunner = true
			continue
		}
		elsewhere = append(elsewhere, f)
	}
	if len(elsewhere) > 0 {
		t.Errorf("git is started outside %s (use package gitstore/git):\n%s", gitRunner, strings.Join(elsewhere, "\n"))
	}
	if !inRunner {
		t.Errorf("%s starts no git: the check no longer finds the runner", gitRunner)
	}
}

// TestGitStartsCheckerFindsThem runs the check over a module holding
// both forms it must find: exec.Command("git", …) and a renamed import's
// CommandContext with a constant naming git, and a shell it must not.
func TestGitStartsCheckerFindsThem(t *testing.T) {
	got := gitStarts(t, filepath.Join("testdata", "gitrunner"), func(string) bool { return false })
	want := []string{"one/one.go:5", "two/two.go:12"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

// gitStarts lists "file:line" of every call starting git in the non-test
// Go files under root, leaving out testdata, hidden directories and what
// skip says (by directory, relative to root).
func gitStarts(t *testing.T, root string, skip func(rel string) bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || skip(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		for _, line := range gitCalls(fset, f) {
			out = append(out, rel+":"+strconv.Itoa(line))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// gitCalls returns the lines of f's calls of os/exec's Command or
// CommandContext whose program is the string "git", written as a literal
// or as a constant of the file.
func gitCalls(fset *token.FileSet, f *ast.File) []int {
	execName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"os/exec"` {
			execName = "exec"
			if imp.Name != nil {
				execName = imp.Name.Name
			}
		}
	}
	if execName == "" {
		return nil
	}
	consts := map[string]string{}
	for _, decl := range f.Decls {
		if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.CONST {
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						if s, ok := stringValue(vs.Values[i], nil); ok {
							consts[name.Name] = s
						}
					}
				}
			}
		}
	}
	var lines []int
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != execName {
			return true
		}
		arg := 0
		switch sel.Sel.Name {
		case "Command":
		case "CommandContext":
			arg = 1
		default:
			return true
		}
		if len(call.Args) > arg {
			if s, ok := stringValue(call.Args[arg], consts); ok && (s == "git" || strings.HasSuffix(s, "/git")) {
				lines = append(lines, fset.Position(call.Pos()).Line)
			}
		}
		return true
	})
	return lines
}

// stringValue is e's value when it is a string literal or a constant of
// consts.
func stringValue(e ast.Expr, consts map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		v := constant.MakeFromLiteral(e.Value, e.Kind, 0)
		if v.Kind() == constant.String {
			return constant.StringVal(v), true
		}
	case *ast.Ident:
		s, ok := consts[e.Name]
		return s, ok
	}
	return "", false
}
