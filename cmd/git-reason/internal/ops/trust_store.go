package ops

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"git-reason/advisor"
	"git-reason/gitstore/git"
)

// TrustStore is the user's record of trusted repository overlays (the
// advisor package decides what an untrusted one may change; this is where
// the user's answer is kept), one entry per repository, in the user's configuration directory where no
// repository can write it (trusted.json beside the user overlay). Like direnv's allow list it
// holds the SHA-256 of the exact content trusted: any change to the file
// makes it untrusted again.
type TrustStore struct {
	Path string
}

// TrustEntry is one trusted overlay.
type TrustEntry struct {
	Repository string `json:"repository"` // the work tree's top, absolute
	File       string `json:"file"`       // the overlay, absolute
	SHA256     string `json:"sha256"`     // of the content trusted
	// Files are the work-tree files the overlay's exec advisors run or
	// read, whose content SHA256 covers too; nil in an entry written
	// before trust covered them (one that covers none has an empty list).
	Files   []advisor.CoveredFile `json:"files"`
	Trusted time.Time             `json:"trusted"`
}

type trustFile struct {
	Trusted []TrustEntry `json:"trusted"`
}

func (s TrustStore) read() (*trustFile, error) {
	tf := &trustFile{}
	if s.Path == "" {
		return tf, nil
	}
	data, err := advisor.ReadRegular(s.Path, 16<<20, true)
	if errors.Is(err, fs.ErrNotExist) {
		return tf, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read trusted overlays: %w", err)
	}
	if err := json.Unmarshal(data, tf); err != nil {
		return nil, fmt.Errorf("read trusted overlays: %s is not what git reason wrote (%v): remove it and trust again", s.Path, err)
	}
	return tf, nil
}

// Trusted reports whether the overlay of repository with content sum is
// trusted.
func (s TrustStore) Trusted(repository, sum string) (bool, error) {
	tf, err := s.read()
	if err != nil {
		return false, err
	}
	for _, e := range tf.Trusted {
		if e.Repository == repository && e.SHA256 == sum {
			return true, nil
		}
	}
	return false, nil
}

// Entry is the entry of repository, nil when there is none.
func (s TrustStore) Entry(repository string) (*TrustEntry, error) {
	tf, err := s.read()
	if err != nil {
		return nil, err
	}
	for i := range tf.Trusted {
		if tf.Trusted[i].Repository == repository {
			return &tf.Trusted[i], nil
		}
	}
	return nil, nil
}

// Trust records e, replacing any earlier entry of its repository.
func (s TrustStore) Trust(e TrustEntry) error {
	if s.Path == "" {
		return errors.New("no configuration directory to record trust in: set HOME or XDG_CONFIG_HOME")
	}
	tf, err := s.read()
	if err != nil {
		return err
	}
	tf.Trusted = slices.DeleteFunc(tf.Trusted, func(o TrustEntry) bool { return o.Repository == e.Repository })
	tf.Trusted = append(tf.Trusted, e)
	return s.write(tf)
}

// Revoke removes the entry of repository and reports whether there was
// one.
func (s TrustStore) Revoke(repository string) (bool, error) {
	tf, err := s.read()
	if err != nil {
		return false, err
	}
	n := len(tf.Trusted)
	tf.Trusted = slices.DeleteFunc(tf.Trusted, func(o TrustEntry) bool { return o.Repository == repository })
	if len(tf.Trusted) == n {
		return false, nil
	}
	return true, s.write(tf)
}

// write replaces the file through a temporary file, readable by the user
// alone.
func (s TrustStore) write(tf *trustFile) error {
	data, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("record trust: %w", err)
	}
	if err := git.WriteFile(s.Path, append(data, '\n'), 0o600, git.Wait, true); err != nil {
		return fmt.Errorf("record trust: %w", err)
	}
	return nil
}

// explainUntrusted says in u.Changed how the work-tree files the
// untrusted overlay's commands name differ from those trust recorded
// for this repository: changed, gone, not covered then (an entry
// written before trust covered them), or not trustable now.
func (e *Session) explainUntrusted(u *advisor.Untrusted) {
	if u == nil {
		return
	}
	st, err := e.Settings()
	if err != nil {
		return
	}
	was, _ := e.trustStore(st.ConfigDir).Entry(e.trustKey())
	if len(u.Files) > 0 || (was != nil && len(was.Files) > 0) {
		u.Changed = changedFiles(e.Repo.WorkTree, was, u.Files)
	}
}

// changedFiles says how files differ from what the trust entry was (nil:
// none) recorded, for the work tree top.
func changedFiles(top string, was *TrustEntry, files []advisor.CoveredFile) []string {
	var out []string
	recorded := map[string]string{}
	if was != nil {
		for _, f := range was.Files {
			recorded[f.Path] = f.SHA256
		}
	}
	for _, f := range files {
		sum, ok := recorded[f.Path]
		switch {
		case f.Problem != "":
			out = append(out, fmt.Sprintf("%s, which advisor %s runs, %s", f.Path, f.Advisor, f.Problem))
		case was == nil:
		case was.Files == nil:
			out = append(out, fmt.Sprintf("%s, which advisor %s runs, was trusted before trust covered the files commands name", f.Path, f.Advisor))
		case !ok:
			out = append(out, fmt.Sprintf("%s, which advisor %s runs, is new since it was trusted", f.Path, f.Advisor))
		case sum != f.SHA256:
			out = append(out, fmt.Sprintf("%s, which advisor %s runs, changed since it was trusted", f.Path, f.Advisor))
		}
		delete(recorded, f.Path)
	}
	for _, f := range was.filesGone(recorded) {
		what := "is gone since it was trusted"
		if _, err := os.Lstat(filepath.Join(top, filepath.FromSlash(f.Path))); err == nil {
			what = "is no longer named by its command"
		}
		out = append(out, fmt.Sprintf("%s, which advisor %s ran, %s", f.Path, f.Advisor, what))
	}
	return out
}

// filesGone are the entry's files still in left, in its order.
func (en *TrustEntry) filesGone(left map[string]string) []advisor.CoveredFile {
	if en == nil {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(en.Files), func(f advisor.CoveredFile) bool { _, ok := left[f.Path]; return !ok })
}
