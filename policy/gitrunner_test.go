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
	found := sourceFinds(t, root, productOnly, gitCalls)
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
	got := sourceFinds(t, filepath.Join("testdata", "gitrunner"), func(string) bool { return false }, gitCalls)
	want := []string{"one/one.go:5", "two/two.go:12"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

// productOnly leaves out the directories of the module that are not
// product code: bench/ and reliability/.
func productOnly(rel string) bool {
	return rel == "bench" || rel == "reliability" || strings.HasPrefix(rel, "bench/") || strings.HasPrefix(rel, "reliability/")
}

// sourceFinds lists "file:line" of every line find reports in the
// non-test Go files under root, leaving out testdata, hidden directories
// and what skip says (by directory, relative to root).
func sourceFinds(t *testing.T, root string, skip func(rel string) bool, find func(*token.FileSet, *ast.File) []int) []string {
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
		for _, line := range find(fset, f) {
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
	execName := importName(f, "os/exec")
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

// importName is the name f uses for the package of path, "" when f does
// not import it.
func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if imp.Path.Value == strconv.Quote(path) {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path[strings.LastIndex(path, "/")+1:]
		}
	}
	return ""
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

// guardFile is the one file that makes an http.Server: every server git
// reason runs (serve, mcp --http, web) is bounded by its Limits.
const guardFile = "cmd/git-reason/internal/guard/guard.go"

// TestServersInOnePlace holds the product code to one server of HTTP,
// guard.Run, given the production bounds (guard.API or guard.Page): an
// http.Server made anywhere else (a literal, new, a variable) or served by
// net/http's own ListenAndServe or Serve, which have no timeouts at all,
// fails; so does a call of guard.Run with other bounds. Both servers'
// files are found calling it.
func TestServersInOnePlace(t *testing.T) {
	root, _ := moduleRoot(t, "..")
	var elsewhere, callers []string
	for _, f := range sourceFinds(t, root, productOnly, httpServers) {
		if !strings.HasPrefix(f, guardFile+":") {
			elsewhere = append(elsewhere, f)
		}
	}
	if len(elsewhere) > 0 {
		t.Errorf("an HTTP server is made or run outside guard.Run with the production bounds (use guard.Run with guard.API or guard.Page):\n%s", strings.Join(elsewhere, "\n"))
	}
	for _, f := range sourceFinds(t, root, productOnly, guardRuns) {
		callers = append(callers, f[:strings.IndexByte(f, ':')])
	}
	for _, want := range []string{"cmd/git-reason/internal/serving/peers.go", "cmd/git-reason/internal/web/serve.go"} {
		if !slices.Contains(callers, want) {
			t.Errorf("%s serves with no guard.Run: the check no longer finds serve's and web's (found %q)", want, callers)
		}
	}
}

// TestServersCheckerFindsThem runs the check over files holding every
// form it must find, and guard.Run given the production bounds, which it
// must not.
func TestServersCheckerFindsThem(t *testing.T) {
	got := sourceFinds(t, filepath.Join("testdata", "servers"), func(string) bool { return false }, httpServers)
	want := []string{"one/one.go:13", "one/one.go:14", "one/one.go:15", "one/one.go:16", "one/one.go:17", "one/one.go:19"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

// httpServers returns the lines of f that make an http.Server (a
// literal, new(http.Server), a variable of that type), serve through
// net/http's package functions, or call guard.Run with bounds other than
// guard.API or guard.Page.
func httpServers(fset *token.FileSet, f *ast.File) []int {
	httpName := importName(f, "net/http")
	guardName := importName(f, "git-reason/cmd/git-reason/internal/guard")
	var lines []int
	ast.Inspect(f, func(n ast.Node) bool {
		found := false
		switch n := n.(type) {
		case *ast.CompositeLit:
			found = isSelector(n.Type, httpName, "Server")
		case *ast.ValueSpec:
			found = isSelector(n.Type, httpName, "Server")
		case *ast.CallExpr:
			switch {
			case isSelector(n.Fun, httpName, "ListenAndServe", "ListenAndServeTLS", "Serve", "ServeTLS"):
				found = true
			case isIdent(n.Fun, "new") && len(n.Args) == 1 && isSelector(n.Args[0], httpName, "Server"):
				found = true
			case isSelector(n.Fun, guardName, "Run"):
				found = len(n.Args) != 6 || !isSelector(n.Args[3], guardName, "API", "Page")
			}
		}
		if found {
			lines = append(lines, fset.Position(n.Pos()).Line)
		}
		return true
	})
	return lines
}

// guardRuns returns the lines of f calling guard.Run.
func guardRuns(fset *token.FileSet, f *ast.File) []int {
	guardName := importName(f, "git-reason/cmd/git-reason/internal/guard")
	var lines []int
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && isSelector(call.Fun, guardName, "Run") {
			lines = append(lines, fset.Position(call.Pos()).Line)
		}
		return true
	})
	return lines
}

// isSelector says whether e is pkg.name for one of names (pkg an
// imported package's name, never "").
func isSelector(e ast.Expr, pkg string, names ...string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || pkg == "" {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == pkg && slices.Contains(names, sel.Sel.Name)
}

// isIdent says whether e is the identifier name.
func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
