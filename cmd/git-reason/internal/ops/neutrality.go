package ops

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"git-reason/advisor"
	"git-reason/policy/neutrality"
)

// NeutralityRequest says what to check: paths (none: the whole tree), the
// index, or a range of commits.
type NeutralityRequest struct {
	Paths  []string
	Staged bool
	Range  string
	Dir    string // the caller's directory; paths are relative to it
}

// CheckNeutrality finds where provider-neutral files name a provider,
// vendor, model or advisor. The names come from the declarations with
// overlays applied, plus the configuration's extra terms; which files are
// neutral comes from .reason/neutrality.yaml. Both repository files are
// taken as staged when checking the index, as at B when checking A..B
// (see neutralityConfig, neutralityCatalog). Without that
// file the repository is not configured and nothing is checked.
func (e *Session) CheckNeutrality(ctx context.Context, req NeutralityRequest) (*neutrality.Result, error) {
	if e.Repo.WorkTree == "" {
		return nil, Usage("check neutrality needs a work tree; this repository is bare")
	}
	for _, p := range req.Paths {
		if p == "" {
			// git refuses an empty pathspec, saying to use '.': said here
			// as bad input, not as git's failure.
			return nil, Usage("path \"\": name a file or directory of the work tree (. for the whole of it)")
		}
	}
	if req.Staged && req.Range != "" {
		return nil, errStagedAndRange
	}
	if req.Range != "" {
		if err := e.checkRange(ctx, req.Range); err != nil {
			return nil, err
		}
	}
	cfg, configured, err := e.neutralityConfig(ctx, req)
	if err != nil {
		return nil, err
	}
	if !configured {
		return neutrality.NotConfigured(), nil
	}
	cat, err := e.neutralityCatalog(ctx, req)
	if err != nil {
		return nil, err
	}
	var terms []neutrality.Term
	for _, n := range cat.Names() {
		terms = append(terms, neutrality.Term{Name: n.Name, DeclaredAs: n.DeclaredAs})
	}
	checker, err := neutrality.NewChecker(cfg, terms)
	if err != nil {
		return nil, Usage("%v", err)
	}
	dir := req.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	res, err := scanNeutrality(ctx, checker, scanRequest{Root: e.Repo.WorkTree, Dir: dir, Paths: req.Paths,
		Staged: req.Staged, Range: req.Range})
	if perr := pathError(err, req.Staged); perr != nil {
		return nil, perr
	}
	return res, err
}

// neutralityConfig is the configuration that applies to what req checks:
// the one staged in the index for the index, the one at B for a range
// A..B, and the work tree's for the work tree or when the index or B has
// none. Read from the work tree only, a push of a branch made from a
// checkout that lacked the file (an older branch) checked nothing, and one
// whose own configuration excludes a path was refused by the checkout's.
func (e *Session) neutralityConfig(ctx context.Context, req NeutralityRequest) (*neutrality.Config, bool, error) {
	data, spec, err := e.checkedFile(ctx, req, neutrality.ConfigPath)
	if err != nil {
		return nil, true, err
	}
	if data == nil {
		return LoadNeutralityConfig(e.Repo.WorkTree)
	}
	c, err := neutrality.ParseConfig(spec, data)
	if err != nil {
		return nil, true, Usage("%v", err)
	}
	return c, true, nil
}

// neutralityCatalog is the catalog whose names the check looks for: with
// the repository's overlay (.reason/advisors.yaml) as the configuration
// is taken (neutralityConfig), staged for the index, at B for a range,
// the work tree's otherwise. Taken from the work tree alone, a vendor
// declared in the overlay a commit or push carries was not looked for,
// and one the work tree alone declares was.
func (e *Session) neutralityCatalog(ctx context.Context, req NeutralityRequest) (*advisor.Catalog, error) {
	data, _, err := e.checkedFile(ctx, req, advisor.RepositoryOverlay)
	if err != nil {
		return nil, err
	}
	if data == nil {
		cat, _, err := e.Catalog()
		return cat, err
	}
	src, err := e.sources()
	if err != nil {
		return nil, err
	}
	src.RepositoryContent = data
	cat, _, err := advisor.Load(src)
	if bad := declarationError(err); bad != nil {
		return nil, bad
	}
	if err != nil {
		return nil, fmt.Errorf("load advisor declarations: %w", err)
	}
	return cat, nil
}

// checkedFile is the file at path (from the work tree's top) that a check
// of req reads: staged in the index when req checks the index, at B when
// it checks a range A..B, with git's name of it; nil when req checks the
// work tree or the index or B holds no such file (the work tree's then
// applies). What is there but is no regular file of at most
// advisor.MaxDeclarationBytes (a symbolic link, a directory, a submodule)
// is refused as the work tree's is, its size asked before it is read.
func (e *Session) checkedFile(ctx context.Context, req NeutralityRequest, path string) ([]byte, string, error) {
	var list []string
	var spec string // git's name of the file's blob
	switch {
	case req.Staged:
		list, spec = []string{"ls-files", "--stage", "--", path}, ":"+path
	case req.Range != "":
		_, tip, _ := strings.Cut(strings.Replace(req.Range, "...", "..", 1), "..")
		if tip == "" {
			tip = "HEAD"
		}
		list, spec = []string{"ls-tree", tip, "--", path}, tip+":"+path
	default:
		return nil, "", nil
	}
	out, err := e.Repo.Git(ctx, list...)
	mode, _, _ := strings.Cut(string(out), " ")
	if err != nil || mode == "" {
		return nil, "", nil
	}
	notFile := Usage("%s: not a regular file of at most %d bytes (a symbolic link, directory or submodule is refused): replace it with the file itself", spec, advisor.MaxDeclarationBytes)
	if mode != "100644" && mode != "100755" {
		return nil, "", notFile
	}
	var n int64
	size, err := e.Repo.Git(ctx, "cat-file", "-s", spec)
	if err == nil {
		_, err = fmt.Sscan(string(size), &n)
	}
	var data []byte
	if err == nil && n <= advisor.MaxDeclarationBytes {
		data, err = e.Repo.Git(ctx, "cat-file", "blob", spec)
	}
	if err != nil || n > advisor.MaxDeclarationBytes {
		return nil, "", notFile
	}
	return append([]byte{}, data...), spec, nil // an empty file is one too
}

// LoadNeutralityConfig reads .reason/neutrality.yaml under the work tree
// root. It returns configured false, and no error, when the file does not
// exist; a file that is not valid YAML, does not satisfy the schema, or
// holds a bad glob, regular expression or term is a usage error naming
// file, line and column.
func LoadNeutralityConfig(root string) (*neutrality.Config, bool, error) {
	name := filepath.Join(root, filepath.FromSlash(neutrality.ConfigPath))
	// A regular file only, as for .reason/advisors.yaml: a link could make
	// the error below quote a file outside the repository, a FIFO would
	// block.
	data, err := advisor.ReadRegular(name, advisor.MaxDeclarationBytes, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if errors.Is(err, advisor.ErrNotRegular) || errors.Is(err, advisor.ErrTooLarge) {
		return nil, true, Usage("%s: not a regular file of at most %d bytes (a symbolic link, FIFO or device is refused): replace it with the file itself", name, advisor.MaxDeclarationBytes)
	}
	if err != nil {
		return nil, false, fmt.Errorf("read neutrality configuration: %w", err)
	}
	c, err := neutrality.ParseConfig(name, data)
	if err != nil {
		return nil, true, Usage("%v", err)
	}
	return c, true, nil
}

// errStagedAndRange refuses a check of both the index and a range; the
// MCP tool's arguments are the flags' names without their dashes.
var errStagedAndRange = usageAdvised("--staged and --range cannot be combined: check the index or a range of commits",
	"staged and range cannot be combined: check the index or a range of commits")

// rangeUsage says what is wrong with the range r, named as the command
// line's flag and as the MCP tool's argument.
func rangeUsage(r, what string) error {
	return usageAdvised(fmt.Sprintf("--range %q: %s", r, what), fmt.Sprintf("range %q: %s", r, what))
}

// checkRange refuses a range that is not A..B (or A...B) of commits this
// repository has, before any check starts.
func (e *Session) checkRange(ctx context.Context, r string) error {
	sep := ".."
	if strings.Contains(r, "...") {
		sep = "..."
	}
	a, b, ok := strings.Cut(r, sep)
	if !ok || strings.HasPrefix(r, "-") {
		return rangeUsage(r, "write A..B")
	}
	for _, rev := range []string{a, b} {
		if rev == "" {
			continue
		}
		if _, err := e.Repo.Git(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{tree}"); err != nil {
			return rangeUsage(r, fmt.Sprintf("%q is not a commit of this repository", rev))
		}
	}
	return nil
}
