package policy

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mayImport is DESIGN.md's "may import" table (its Layout section), as
// packages of this module each package may import directly, by folder: a
// row covers its folder and every package below it that has no row of its
// own, and an entry allows that folder and everything below it. A package
// may always import packages of its own row's folder. "*" allows every
// package of the module. Only non-test files are read: tests may import
// what they need to hold the code.
//
// The table's rows, with each row's layers below it written out (a row
// may import what the rows it names may, as record brings schemas):
//
//   - cmd/git-reason: everything below it.
//   - record: schemas, policy.
//   - policy: nothing of ours. policy/neutrality is "a domain package of
//     its own" (DESIGN.md): it reads a declaration file, so schemas.
//   - advisor: policy, record, share, and schemas (record's).
//   - gitstore: record, and schemas and policy (record's). Its packages
//     below it come under its row: sync's orchestration
//     (gitstore/integration) reads through gitstore and asks record.
//     gitstore/git, where git is spoken (the one runner, cat-file reader
//     and lockfile): nothing of ours.
//   - schemas, share: nothing.
//   - hooks: nothing of ours (the table's "—").
//
// Where the table is silent, the rule is written here:
//
//   - cmd/git-reason--net, the network verbs' program beside git-reason:
//     only its entry, cmd/git-reason/network (Go lets only cmd/git-reason's
//     tree import its internal packages).
//   - cmd/git-reason/internal: the surfaces (cli, mcpserver, web) render
//     what the operations layer returns and never reach storage: ops and
//     the domain, not gitstore (cli also shows hooks' statuses, and
//     uses gitstore/git to run git for the demo's scratch repository and
//     for conclude's editor, and on a signal to remove the locks it holds
//     and pass the signal on to its git processes). ops orchestrates: everything but the
//     surfaces. settings reads configuration: nothing of ours but gitstore
//     (git is asked through its one runner). guard is a leaf. serving
//     wires the network programs' servers: everything.
//   - bench: benchmarks measure packages and the binary: everything.
//   - reliability: the proofs drive the built binary from outside, as a
//     user does: nothing of ours outside reliability but record, whose
//     format the harness writes to make histories in bulk (BulkTasks), as
//     another clone's git reason would have written them.
var mayImport = map[string][]string{
	"cmd/git-reason":                    {"*"},
	"cmd/git-reason--net":               {"cmd/git-reason/network"},
	"cmd/git-reason/internal/cli":       {"cmd/git-reason/internal/ops", "cmd/git-reason/internal/settings", "hooks", "gitstore/git", domain},
	"cmd/git-reason/internal/mcpserver": {"cmd/git-reason/internal/ops", domain},
	"cmd/git-reason/internal/web":       {"cmd/git-reason/internal/ops", "cmd/git-reason/internal/guard", domain},
	"cmd/git-reason/internal/ops":       {"cmd/git-reason/internal/settings", "gitstore", "hooks", domain},
	"cmd/git-reason/internal/settings":  {"gitstore"},
	"cmd/git-reason/internal/guard":     {},
	"cmd/git-reason/internal/serving":   {"*"},
	"record":                            {"schemas", "policy"},
	"policy":                            {},
	"policy/neutrality":                 {"schemas"},
	"advisor":                           {"policy", "record", "share", "schemas"},
	"gitstore":                          {"record", "schemas", "policy"},
	"gitstore/git":                      {},
	"schemas":                           {},
	"share":                             {},
	"hooks":                             {},
	"bench":                             {"*"},
	"reliability":                       {"record"},
}

// domain stands for the domain packages a surface may show: advisor,
// policy, record, schemas, share.
const domain = "(domain)"

var domainFolders = []string{"advisor", "policy", "record", "schemas", "share"}

// TestLayout holds the whole module to mayImport: an import the table
// does not allow, or a package no row covers, fails.
func TestLayout(t *testing.T) {
	root, mod := moduleRoot(t, "..")
	for _, v := range layoutViolations(t, root, mod, mayImport) {
		t.Error(v)
	}
}

// The check can fail: with record's row emptied, its imports of schemas
// and policy are reported, and a package outside every row is too.
func TestLayoutCheckerFindsViolations(t *testing.T) {
	root, mod := moduleRoot(t, "..")
	rows := map[string][]string{}
	for k, v := range mayImport {
		if k != "record" && k != "hooks" {
			rows[k] = v
		}
	}
	rows["record"] = []string{}
	got := strings.Join(layoutViolations(t, root, mod, rows), "\n")
	for _, want := range []string{`record imports "git-reason/schemas"`, `record imports "git-reason/policy"`,
		"hooks: no row of the layout table covers it"} {
		if !strings.Contains(got, want) {
			t.Errorf("the check does not report %q; it reported:\n%s", want, got)
		}
	}
}

// layoutViolations checks every package of the module rooted at root
// against rows.
func layoutViolations(t *testing.T, root, mod string, rows map[string][]string) []string {
	t.Helper()
	var out []string
	for _, pkg := range modulePackages(t, root) {
		row, ok := rowOf(pkg, rows)
		if !ok {
			out = append(out, pkg+": no row of the layout table covers it (add one to mayImport in policy/layout_test.go)")
			continue
		}
		imports := importsOf(t, root, pkg)
		for _, imp := range sortedKeys(imports) {
			if imp != mod && !strings.HasPrefix(imp, mod+"/") {
				continue
			}
			target := strings.TrimPrefix(strings.TrimPrefix(imp, mod), "/")
			if !allowed(row, rows[row], target) {
				out = append(out, fmt.Sprintf("%s imports %q (%s): the layout table lets %s import %s",
					pkg, imp, imports[imp], row, describeRow(rows[row])))
			}
		}
	}
	return out
}

// rowOf is the row covering pkg: its own, else its nearest folder's.
func rowOf(pkg string, rows map[string][]string) (string, bool) {
	for p := pkg; p != "." && p != ""; p = filepath.ToSlash(filepath.Dir(p)) {
		if _, ok := rows[p]; ok {
			return p, true
		}
	}
	return "", false
}

func allowed(row string, entries []string, target string) bool {
	if within(target, row) {
		return true
	}
	for _, e := range entries {
		if e == "*" || within(target, e) || e == domain && slices.ContainsFunc(domainFolders, func(f string) bool { return within(target, f) }) {
			return true
		}
	}
	return false
}

// within reports whether pkg is folder or below it.
func within(pkg, folder string) bool {
	return pkg == folder || strings.HasPrefix(pkg, folder+"/")
}

func describeRow(entries []string) string {
	if len(entries) == 0 {
		return "nothing of ours outside its folder"
	}
	return strings.Join(entries, ", ")
}

// modulePackages lists, relative to root, every directory holding a
// non-test Go file, leaving out testdata and hidden directories (the go
// command ignores them too).
func modulePackages(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if hasGoFiles(p) {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
