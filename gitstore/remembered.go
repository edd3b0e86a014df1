package gitstore

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Remembered is what sync remembers verified across runs: the task heads
// whose whole history replayed with no finding at all, so that a later
// verification of a history containing one replays only the commits after
// it (record.Checked.ReplayFrom). It lives in .git/reason/verified.json.
//
// It is an optimisation only, never a source of trust:
//
//   - an entry names a commit id, which names the commit's whole history;
//     a forged or rewritten ref points at another commit, which matches no
//     entry, and its history is replayed whole;
//   - each entry carries an HMAC-SHA256 of its task and head under a
//     random key kept beside it (.git/reason/verified.key, created on
//     first use, mode 0600); an entry whose MAC does not match (edited,
//     copied to another task, or written with another key) is ignored,
//     so editing the file can only make verification do more work;
//   - the replay state at a remembered head is recomputed from that
//     head's own records/ tree and records (see record.Base), never read
//     from the file.
//
// Reuse checks, which depend on other tasks' refs as they are now, are
// never remembered. It is safe for concurrent use; Save writes the file
// atomically, and two processes saving at once lose entries, never
// correctness.
type Remembered struct {
	dir string

	mu    sync.Mutex
	key   []byte
	heads map[string][]string // task -> remembered heads, oldest first
	dirty bool
}

// rememberedPerTask bounds the heads remembered per task: the latest few
// are the ones a next verification starts from.
const rememberedPerTask = 8

type rememberedFile struct {
	Version int                          `json:"version"`
	Tasks   map[string][]rememberedEntry `json:"tasks"`
}

type rememberedEntry struct {
	Head string `json:"head"`
	MAC  string `json:"mac"`
}

const rememberedVersion = 1

// OpenRemembered reads the remembered heads of r, keeping only entries
// whose MAC matches. A missing, unreadable or foreign file remembers
// nothing.
func OpenRemembered(r *Repo) *Remembered {
	m := &Remembered{dir: filepath.Join(r.CommonDir, "reason"), heads: map[string][]string{}}
	key, err := os.ReadFile(filepath.Join(m.dir, "verified.key"))
	if err != nil || len(key) != 32 {
		return m // a new key is made when something is saved
	}
	m.key = key
	var f rememberedFile
	data, err := readShared(filepath.Join(m.dir, "verified.json"))
	if err != nil || json.Unmarshal(data, &f) != nil || f.Version != rememberedVersion {
		return m
	}
	for task, entries := range f.Tasks {
		for _, e := range entries {
			if isHex(e.Head) && len(e.Head) == 40 && hmac.Equal([]byte(e.MAC), []byte(m.mac(task, e.Head))) {
				m.heads[task] = append(m.heads[task], e.Head)
			}
		}
	}
	return m
}

func (m *Remembered) mac(task, head string) string {
	h := hmac.New(sha256.New, m.key)
	h.Write([]byte("git-reason verified v1\x00" + task + "\x00" + head))
	return hex.EncodeToString(h.Sum(nil))
}

// Heads returns the remembered heads of task.
func (m *Remembered) Heads(task string) []string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.heads[task]...)
}

// Has reports whether head of task is remembered.
func (m *Remembered) Has(task, head string) bool {
	for _, h := range m.Heads(task) {
		if h == head {
			return true
		}
	}
	return false
}

// Add remembers that head's history, as a history of task, replays with
// no finding. Only a replay may say so.
func (m *Remembered) Add(task, head string) {
	if m == nil || m.Has(task, head) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	hs := append(m.heads[task], head)
	if len(hs) > rememberedPerTask {
		hs = hs[len(hs)-rememberedPerTask:]
	}
	m.heads[task] = hs
	m.dirty = true
}

// Save writes what was added since the file was read. A memo that cannot
// be saved costs a longer verification next time, nothing else.
func (m *Remembered) Save() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirty {
		return nil
	}
	if m.key == nil {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return err
		}
		if err := os.MkdirAll(m.dir, 0o777); err != nil {
			return err
		}
		// Exclusive: a key another process made first is read, not replaced.
		f, err := os.OpenFile(filepath.Join(m.dir, "verified.key"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		switch {
		case errors.Is(err, fs.ErrExist):
			if key, err = os.ReadFile(filepath.Join(m.dir, "verified.key")); err != nil || len(key) != 32 {
				return errors.New("remembered verifications: unreadable key")
			}
		case err != nil:
			return err
		default:
			_, err = f.Write(key)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				os.Remove(f.Name())
				return err
			}
		}
		m.key = key
	}
	out := rememberedFile{Version: rememberedVersion, Tasks: map[string][]rememberedEntry{}}
	for task, hs := range m.heads {
		for _, h := range hs {
			out.Tasks[task] = append(out.Tasks[task], rememberedEntry{Head: h, MAC: m.mac(task, h)})
		}
	}
	data, err := json.Marshal(out)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(m.dir, "verified.json"), data); err != nil {
		return err
	}
	m.dirty = false
	return nil
}
