package gitstore

import (
	"bytes"
	"crypto/hmac"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"git-reason/gitstore/git"
)

// VerifiedAll is the bulk form of the remembered verifications
// (Remembered), for a verification of every task: one file,
// .git/reason/verified.all, read in one go, that lists the tasks whose
// history at a head replayed with no finding and whose reuses of other
// tasks' conclusions were checked with no finding while each reused task
// was at a given head. A verification of every task with nothing moved
// reads this file instead of a file per task (verified.d/: 20,000 files
// opened at 20,000 tasks); a task whose head or whose reused tasks' heads
// moved is verified as before, through Remembered, and the file is
// written again whole (about 60 bytes a task) when what it lists
// changed. What such a verification finds of reuses is kept here alone
// (Remembered.ReusesInBulk): a task's file of verified.d/ is written
// only when a head is added to it.
//
// It is an optimisation only, never a source of trust, as Remembered:
//
//   - an entry holds only while the task's ref is at the entry's head and
//     each reused task's ref at the head the entry gives it (keyed by
//     heads: a ref moved by a plain git fetch or update-ref matches no
//     entry, and its history is verified again);
//   - the whole file carries one HMAC-SHA256 under the repository's key
//     (verified.key), over the release that wrote it (the reuse rules are
//     the program's) and every line; a file whose MAC does not hold
//     (edited, copied from another repository, written by another
//     release) holds nothing, and the next verification of every task
//     writes it again.
type VerifiedAll struct {
	path string
	key  []byte
	// read: what the file held (its MAC checked); next: what this
	// verification found clean.
	read, next map[string]verifiedEntry
}

type verifiedEntry struct {
	head   string
	reused map[string]string
}

// verifiedAllFile is the file's name under .git/reason/.
const verifiedAllFile = "verified.all"

// verifiedAllMagic is the file's first line, followed by the release that
// wrote it.
const verifiedAllMagic = "git reason verified-all v1 "

// OpenVerifiedAll reads r's bulk remembered verifications. A missing,
// foreign or edited file, or no key, holds nothing.
func OpenVerifiedAll(r *Repo) *VerifiedAll {
	dir := filepath.Join(r.CommonDir, "reason")
	v := &VerifiedAll{path: filepath.Join(dir, verifiedAllFile), read: map[string]verifiedEntry{}, next: map[string]verifiedEntry{}}
	v.key, _ = repoKey(dir, false)
	if v.key == nil {
		return v
	}
	data, err := ReadShared(v.path)
	if err != nil {
		return v
	}
	v.read = v.parse(data)
	return v
}

// magic is this build's first line.
func (v *VerifiedAll) magic() string {
	return verifiedAllMagic + strings.ReplaceAll(release(), "\n", " ") + "\n"
}

func (v *VerifiedAll) mac(body []byte) string {
	return keyedMAC(v.key, "git-reason verified-all v1\x00", body)
}

// parse reads data: the magic line, a line per task ("<task> <head>",
// then " <reused task> <its head>" per reuse), and the line "mac <MAC>"
// over everything before it. Anything else holds nothing.
func (v *VerifiedAll) parse(data []byte) map[string]verifiedEntry {
	out := map[string]verifiedEntry{}
	magic := v.magic()
	i := bytes.LastIndex(data, []byte("\nmac "))
	if !bytes.HasPrefix(data, []byte(magic)) || i < len(magic)-1 {
		return out
	}
	body, tail := data[:i+1], data[i+1:]
	mac, ok := bytes.CutSuffix(bytes.TrimPrefix(tail, []byte("mac ")), []byte("\n"))
	if !ok || !hmac.Equal(mac, []byte(v.mac(body))) {
		return out
	}
	lines := string(body[len(magic):])
	out = make(map[string]verifiedEntry, strings.Count(lines, "\n"))
	for len(lines) > 0 {
		line, rest, _ := strings.Cut(lines, "\n")
		lines = rest
		f := strings.Fields(line)
		if len(f) < 2 || len(f)%2 != 0 {
			return map[string]verifiedEntry{}
		}
		e := verifiedEntry{head: f[1]}
		for j := 2; j < len(f); j += 2 {
			if e.reused == nil {
				e.reused = map[string]string{}
			}
			e.reused[f[j]] = f[j+1]
		}
		out[f[0]] = e
	}
	return out
}

// Clean reports whether task at head is listed as verified clean, with
// every task it reuses at the head heads (every task's head now) gives
// it, as when its reuses were checked.
func (v *VerifiedAll) Clean(task, head string, heads map[string]string) bool {
	e, ok := v.read[task]
	if !ok || e.head != head {
		return false
	}
	for u, h := range e.reused {
		if heads[u] != h {
			return false
		}
	}
	v.next[task] = e
	return true
}

// Put lists task at head as verified clean, its reuses checked against
// the reused tasks at the heads reused gives. Only a verification that
// found nothing may say so.
func (v *VerifiedAll) Put(task, head string, reused map[string]string) {
	v.next[task] = verifiedEntry{head: head, reused: maps.Clone(reused)}
}

// Save writes the file again, whole, when what this verification found
// clean differs from what it read; a file another process is writing is
// left to it. Tasks not looked at (Clean or Put) since it was opened are
// dropped: Save follows a verification of every task.
func (v *VerifiedAll) Save() error {
	if sameEntries(v.read, v.next) {
		return nil
	}
	if v.key == nil {
		key, err := repoKey(filepath.Dir(v.path), true)
		if err != nil {
			return err
		}
		v.key = key
	}
	var b bytes.Buffer
	b.WriteString(v.magic())
	for _, t := range slices.Sorted(maps.Keys(v.next)) {
		e := v.next[t]
		b.WriteString(t + " " + e.head)
		for _, u := range slices.Sorted(maps.Keys(e.reused)) {
			b.WriteString(" " + u + " " + e.reused[u])
		}
		b.WriteByte('\n')
	}
	b.WriteString("mac " + v.mac(b.Bytes()) + "\n")
	CountWritten(b.Len())
	err := git.WriteFile(v.path, b.Bytes(), 0o600, 0, false)
	if err == nil || errors.Is(err, git.ErrLocked) {
		v.read = maps.Clone(v.next)
		return nil
	}
	return err
}

func sameEntries(a, b map[string]verifiedEntry) bool {
	return maps.EqualFunc(a, b, func(x, y verifiedEntry) bool { return x.head == y.head && maps.Equal(x.reused, y.reused) })
}
