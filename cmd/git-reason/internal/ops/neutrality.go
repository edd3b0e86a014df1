package ops

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"

	"git-reason/cmd/git-reason/internal/neutrality"
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
// neutral comes from .reason/neutrality.yaml. Without that file the
// repository is not configured and nothing is checked.
func (e *Session) CheckNeutrality(ctx context.Context, req NeutralityRequest) (*neutrality.Result, error) {
	if e.Repo.WorkTree == "" {
		return nil, Usage("check neutrality needs a work tree; this repository is bare")
	}
	if req.Staged && req.Range != "" {
		return nil, Usage("--staged and --range cannot be combined: check the index or a range of commits")
	}
	if req.Range != "" {
		if err := e.checkRange(req.Range); err != nil {
			return nil, err
		}
	}
	cfg, configured, err := neutrality.LoadConfig(e.Repo.WorkTree)
	if err != nil {
		var ce *neutrality.ConfigError
		if errors.As(err, &ce) {
			return nil, Usage("%v", err)
		}
		return nil, err
	}
	if !configured {
		return &neutrality.Result{Configured: false, Violations: []neutrality.Violation{}}, nil
	}
	cat, _, err := e.Catalog()
	if err != nil {
		return nil, err
	}
	var terms []neutrality.Term
	for _, n := range cat.Names() {
		terms = append(terms, neutrality.Term{Name: n.Name, DeclaredAs: n.DeclaredAs})
	}
	dir := req.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	res, err := neutrality.Check(ctx, neutrality.Request{Root: e.Repo.WorkTree, Dir: dir, Paths: req.Paths,
		Staged: req.Staged, Range: req.Range, Config: cfg, Terms: terms})
	if errors.Is(err, neutrality.ErrInvalidRequest) {
		return nil, Usage("%v", err)
	}
	return res, err
}

// checkRange refuses a range that is not A..B (or A...B) of commits this
// repository has, before any check starts.
func (e *Session) checkRange(r string) error {
	sep := ".."
	if strings.Contains(r, "...") {
		sep = "..."
	}
	a, b, ok := strings.Cut(r, sep)
	if !ok {
		return Usage("--range %q: write A..B", r)
	}
	for _, rev := range []string{a, b} {
		if rev == "" {
			continue
		}
		cmd := exec.Command("git", "rev-parse", "--verify", "--quiet", rev+"^{tree}")
		cmd.Dir = e.Repo.WorkTree
		if err := cmd.Run(); err != nil {
			return Usage("--range %q: %q is not a commit of this repository", r, rev)
		}
	}
	return nil
}
