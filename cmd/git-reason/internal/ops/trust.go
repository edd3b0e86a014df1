package ops

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"git-reason/advisor"
	"git-reason/gitstore/signing"
	"git-reason/record"
)

// refusal is an error the command line exits 3 on: a rule refused. tools,
// when set, says it to the MCP tools (record.ToolAdvised), as
// usageError's does.
type refusal struct{ msg, tools string }

func (e *refusal) Error() string        { return e.msg }
func (e *refusal) Is(target error) bool { return target == record.ErrRefused }
func (e *refusal) ToolMessage() string  { return cmp.Or(e.tools, e.msg) }

// Refused returns an error saying which rule refused and what to do.
func Refused(format string, args ...any) error { return &refusal{msg: fmt.Sprintf(format, args...)} }

// sources says where the declarations come from, and which repository
// overlay content the user trusted.
func (e *Session) sources() (advisor.Sources, error) {
	var src advisor.Sources
	st, err := e.Settings()
	if err != nil {
		return src, err
	}
	if st.ConfigDir != "" {
		src.User = filepath.Join(st.ConfigDir, "advisors.yaml")
	}
	if e.Repo.WorkTree == "" {
		return src, nil
	}
	src.Repository = advisor.RepositoryOverlayPath(e.Repo.WorkTree)
	store, repo := e.trustStore(st.ConfigDir), e.trustKey()
	src.RepositoryTrusted = func(sum string) bool {
		ok, err := store.Trusted(repo, e.coveredSum(sum))
		return err == nil && ok // a trust file that does not read trusts nothing
	}
	src.RepositoryRecorded = func() bool {
		en, _ := store.Entry(repo)
		return en != nil
	}
	return src, nil
}

// trustStore is trusted.json in the user's configuration directory, where
// no repository writes.
func (e *Session) trustStore(configDir string) TrustStore {
	if configDir == "" {
		return TrustStore{}
	}
	return TrustStore{Path: filepath.Join(configDir, "trusted.json")}
}

// trustKey is the repository path trust is recorded under: the work tree's
// top with symbolic links resolved, so that one checkout has one key.
func (e *Session) trustKey() string {
	if p, err := filepath.EvalSymlinks(e.Repo.WorkTree); err == nil {
		return p
	}
	return e.Repo.WorkTree
}

// noticeUntrusted gives, once per session, the one line saying that the
// repository overlay is not trusted and what was ignored.
func (e *Session) noticeUntrusted(cat *advisor.Catalog) {
	if cat.Untrusted == nil || e.warned || !e.listening() {
		return
	}
	e.warned = true
	e.say(record.Advice{CLI: record.Printable(cat.Untrusted.Notice()), Tools: record.Printable(cat.Untrusted.ToolNotice())})
}

// TrustRequest says what 'git reason trust' does.
type TrustRequest struct {
	Revoke bool // forget the trust recorded for this repository
	Show   bool // only show what trusting would do
}

// TrustResult is what trust showed and did.
type TrustResult struct {
	Repository string           `json:"repository"`
	File       string           `json:"file"`
	SHA256     string           `json:"sha256,omitempty"`
	Effects    []advisor.Effect `json:"effects"`
	// Files are the work-tree files its exec advisors run or read, with
	// the digests trust covers: they run in the work tree's top.
	Files []advisor.CoveredFile `json:"files"`
	// Profiles are the profiles trusting adds, or whose mode it lowers.
	Profiles []advisor.ProfileEffect `json:"profiles"`
	// SignersFile is the repository's .reason/allowed_signers when it has
	// one, and Signers its entries: trusting makes each an allowed signer
	// whose signatures on records read as good.
	SignersFile string                 `json:"signers_file,omitempty"`
	Signers     []signing.AllowedEntry `json:"signers"`
	// NoOverlay is set when the repository has allowed signers and no
	// .reason/advisors.yaml: File names where that would be.
	NoOverlay bool `json:"-"`
	Trusted   bool `json:"trusted"` // trusted after the command
	Revoked   bool `json:"revoked,omitempty"`
}

// Trust shows what the repository overlay runs and where it sends which
// credential, what records would attribute and what could lower review,
// then records its content's SHA-256 as trusted (direnv's
// allow); with Revoke it forgets that. What is shown and what is recorded
// come from one read of the file.
func (e *Session) Trust(req TrustRequest) (*TrustResult, error) {
	if e.Repo.WorkTree == "" && !e.Repo.Bare {
		return nil, e.outsideWorkTree("trust")
	}
	if e.Repo.WorkTree == "" {
		return nil, Usage("a bare repository has no .reason/advisors.yaml to trust")
	}
	src, err := e.sources()
	if err != nil {
		return nil, err
	}
	st, err := e.Settings()
	if err != nil {
		return nil, err
	}
	res := &TrustResult{Repository: e.trustKey(), File: src.Repository, Effects: []advisor.Effect{}, Files: []advisor.CoveredFile{}, Profiles: []advisor.ProfileEffect{},
		Signers: []signing.AllowedEntry{}}
	store := e.trustStore(st.ConfigDir)
	if req.Revoke {
		revoked, err := store.Revoke(res.Repository)
		if err != nil {
			return nil, err
		}
		res.Revoked = revoked
		return res, nil
	}
	// The allowed signers are read once, as the overlay is: what is shown
	// is what the recorded hash covers.
	signers, serr := e.signersFile()
	switch {
	case errors.Is(serr, advisor.ErrNotRegular):
		return nil, Usage("%s is not a regular file (a symbolic link, FIFO or device is refused): it cannot be trusted", e.repositorySigners())
	case errors.Is(serr, advisor.ErrTooLarge):
		return nil, Usage("%s is larger than %d bytes: it cannot be trusted", e.repositorySigners(), advisor.MaxDeclarationBytes)
	}
	if signers != nil {
		res.SignersFile = e.repositorySigners()
		res.Signers = append(res.Signers, signing.ListAllowed(signers)...)
	}
	effects, err := advisor.OverlayEffects(src)
	if errors.Is(err, fs.ErrNotExist) && signers != nil {
		// Only .reason/allowed_signers: trusting covers it alone.
		effects, err = &advisor.Effects{}, nil
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, Usage("no %s in this repository: there is nothing to trust", src.Repository)
	case errors.Is(err, advisor.ErrNotRegular):
		return nil, Usage("%s is not a regular file (a symbolic link, FIFO or device is refused): it cannot be trusted", src.Repository)
	case errors.Is(err, advisor.ErrTooLarge):
		return nil, Usage("%s is larger than %d bytes: it cannot be trusted", src.Repository, advisor.MaxDeclarationBytes)
	case err != nil:
		if bad := declarationError(err); bad != nil {
			return nil, bad
		}
		return nil, err
	}
	for _, f := range effects.Files {
		if f.Problem != "" {
			return nil, Usage("%s, which advisor %s runs, %s: it cannot be trusted", filepath.Join(e.Repo.WorkTree, filepath.FromSlash(f.Path)), f.Advisor, f.Problem)
		}
	}
	res.Files = append(res.Files, effects.Files...)
	res.NoOverlay = effects.SHA256 == ""
	sum := coverSigners(effects.SHA256, signers)
	res.SHA256 = sum
	res.Effects = append(res.Effects, effects.Advisors...)
	res.Profiles = append(res.Profiles, effects.Profiles...)
	if req.Show {
		res.Trusted, _ = store.Trusted(res.Repository, sum)
		return res, nil
	}
	if err := store.Trust(TrustEntry{Repository: res.Repository, File: src.Repository, SHA256: sum, Files: res.Files, Trusted: time.Now().UTC()}); err != nil {
		return nil, err
	}
	res.Trusted = true
	return res, nil
}
