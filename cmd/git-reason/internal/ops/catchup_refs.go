package ops

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"git-reason/gitstore"
	"git-reason/gitstore/git"
)

// What a catch-up compares the tracking refs with, under .git/reason/:
// fetched.heads, a line per tracking ref as last integrated ("remote/task
// head"; appended, the last line of a name wins), and fetched.loose, the
// tracking refs that had a loose file then, with their values, under a
// line that counts fetched.heads' lines and the tracking refs.
//
// A plain git fetch writes the refs it moves as loose files (git packs
// them only in git gc, git maintenance or git pack-refs). So while
// packed-refs is the file it was at the last catch-up (the stamp says
// so), a tracking ref that moved since has a loose file that differs
// from fetched.loose: the catch-up lists the loose tracking refs alone,
// looks the few new ones up in packed-refs, and reads neither
// fetched.heads nor packed-refs whole. When git packed the refs since
// (packed-refs rewritten: a ref it holds may have changed anywhere in
// it), the digest of the tracking refs as integrated, which fetched.loose
// also keeps (gitstore.RefsDigest, keyed), is compared with the digest of
// the tracking refs now, read from packed-refs in place: equal, nothing
// moved and fetched.heads is not read. Otherwise (a loose ref is gone,
// the digests differ, no fetched.loose yet) every tracking ref is
// compared with fetched.heads.
const looseFile = "fetched.loose"

// looseMagic begins fetched.loose: the version, then fetched.heads' lines,
// the tracking refs and their digest.
const looseMagic = "git reason fetched.loose 2"

// tracked is what a catch-up compares: tracking refs with their values
// now, and what they were when last integrated.
type tracked struct {
	refs  []gitstore.Ref    // every tracking ref (whole), or the loose ones that changed
	known map[string]string // "remote/task" -> head as last integrated
	whole bool              // refs holds every tracking ref, known all of fetched.heads
	lines int               // fetched.heads' lines
	live  int               // tracking refs
	loose []gitstore.Ref    // the tracking refs with a loose file now
	// digest is the digest of the tracking refs once refs are
	// integrated (when !whole: the one fetched.loose kept, updated with
	// refs; when whole, made in saveCatchUp).
	digest gitstore.RefsDigest
}

// readTracked reads the tracking refs that may have moved since the last
// catch-up, whose stamp was old (stamp: the namespace now).
func (e *Session) readTracked(dir string, old, stamp []byte) (*tracked, error) {
	if kept, ok := readLoose(filepath.Join(dir, looseFile)); ok {
		if loose, err := e.Repo.LooseRefs(gitstore.RemotePrefix); err == nil {
			if p := packedLine(stamp); p != "" && p == packedLine(old) {
				if t, ok := e.looseMoved(kept, loose); ok {
					return t, nil
				}
			}
			if t, ok := e.packedUnmoved(kept, loose); ok {
				return t, nil
			}
		}
	}
	refs, loose, err := e.Repo.ListRefsLoose(gitstore.RemotePrefix)
	if err != nil {
		return nil, err
	}
	known, lines := readHeads(filepath.Join(dir, headsFile))
	return &tracked{refs: refs, known: known, whole: true, lines: lines, live: len(refs), loose: loose}, nil
}

// looseMoved is readTracked while packed-refs is the file the stamp old
// names: the loose tracking refs (loose) that differ from fetched.loose
// (kept). false sends the caller on.
func (e *Session) looseMoved(kept keptLoose, loose []gitstore.Ref) (*tracked, bool) {
	snap := kept.snap
	var err error
	t := &tracked{known: map[string]string{}, lines: kept.lines, live: kept.live, loose: loose, digest: kept.digest}
	now := make(map[string]bool, len(loose))
	for _, r := range loose {
		name := strings.TrimPrefix(r.Name, gitstore.RemotePrefix)
		now[name] = true
		before, was := snap[name]
		if !was {
			// Loose since: it had its packed value (or none: a new ref).
			if before, err = e.Repo.PackedRef(r.Name); err != nil {
				return nil, false
			}
			if before == "" {
				t.live++
			}
		}
		if before != r.Hash {
			t.refs = append(t.refs, r)
			t.known[name] = before
		}
	}
	for name := range snap {
		if !now[name] {
			return nil, false // deleted, or packed meanwhile
		}
	}
	if len(t.refs) > 0 {
		g, err := e.Repo.RefsDigester()
		if err != nil {
			return nil, false
		}
		for _, r := range t.refs {
			if before := t.known[strings.TrimPrefix(r.Name, gitstore.RemotePrefix)]; before != "" {
				g.Remove(&t.digest, r.Name, before)
			}
			g.Add(&t.digest, r.Name, r.Hash)
		}
	}
	return t, true
}

// packedUnmoved is readTracked after git packed the refs (packed-refs is
// not the file the stamp names): when the digest of the tracking refs now
// (packed-refs' section read in place, the loose ones over it) is the one
// fetched.loose kept, nothing moved, and the tracked it returns moves
// nothing. false sends the caller to compare every tracking ref.
func (e *Session) packedUnmoved(kept keptLoose, loose []gitstore.Ref) (*tracked, bool) {
	g, err := e.Repo.RefsDigester()
	if err != nil {
		return nil, false
	}
	now, live, err := e.Repo.DigestRefs(g, gitstore.RemotePrefix, loose)
	if err != nil || now != kept.digest {
		return nil, false
	}
	return &tracked{known: map[string]string{}, lines: kept.lines, live: live, loose: loose, digest: kept.digest}, true
}

// packedLine is the stamp's line for packed-refs ("" when none).
func packedLine(stamp []byte) string {
	for _, l := range strings.Split(string(stamp), "\n") {
		if strings.HasSuffix(l, string(filepath.Separator)+"packed-refs") {
			return l
		}
	}
	return ""
}

// keptLoose is what fetched.loose keeps: the loose tracking refs by
// "remote/task", fetched.heads' lines, the tracking refs and their
// digest.
type keptLoose struct {
	snap        map[string]string
	lines, live int
	digest      gitstore.RefsDigest
}

// readLoose reads fetched.loose; false when it is missing or does not
// read.
func readLoose(path string) (k keptLoose, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return k, false
	}
	head, rest, found := bytes.Cut(data, []byte{'\n'})
	f := strings.Fields(string(head))
	if !found || len(f) != 7 || strings.Join(f[:4], " ") != looseMagic {
		return k, false
	}
	if k.lines, err = strconv.Atoi(f[4]); err != nil {
		return k, false
	}
	if k.live, err = strconv.Atoi(f[5]); err != nil {
		return k, false
	}
	if k.digest, ok = gitstore.ParseRefsDigest(f[6]); !ok {
		return k, false
	}
	k.snap = map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(rest), "\n"), "\n") {
		if l == "" {
			continue
		}
		name, h, cut := strings.Cut(l, " ")
		if !cut || len(h) != 40 {
			return k, false
		}
		k.snap[name] = h
	}
	return k, true
}

// memoWait is how long the catch-up's files wait for their locks: a
// command writing them holds a lock for a moment, and one held longer is
// most likely left by a command that was killed (as git leaves one),
// which only a person removes. These files are a memo: unwritten, the
// next command looks at the tracking refs again, so a stale lock costs
// each command this wait once, then none (noLockWait), not git.Wait.
const memoWait = time.Second

// saveCatchUp remembers the heads of t as integrated, then the loose
// tracking refs, then the stamp. Only the lines of heads that differ from
// t.known are appended to fetched.heads (a command after a fetch that
// moved k tasks writes k lines), which is rewritten whole only when a
// tracking ref is gone or its replaced lines would outnumber the live
// ones. An unsettled stamp is not written: the next command looks anyway.
func (e *Session) saveCatchUp(dir string, stamp []byte, settled bool, t *tracked) error {
	wait := memoWait
	if e.noLockWait {
		wait = 0
	}
	if err := git.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	var add bytes.Buffer
	if t.whole && len(t.known) == 0 {
		add.Grow(len(t.refs) * headLineSize) // a clone's first: every ref
	}
	added := 0
	live := make(map[string]bool, len(t.refs))
	for _, r := range t.refs {
		name := strings.TrimPrefix(r.Name, gitstore.RemotePrefix)
		live[name] = true
		if t.known[name] != r.Hash {
			writeHead(&add, name, r.Hash)
			added++
		}
	}
	gone := 0
	if t.whole {
		for name := range t.known {
			if !live[name] {
				gone++
			}
		}
	}
	path := filepath.Join(dir, headsFile)
	snapPath := filepath.Join(dir, looseFile)
	switch {
	case !t.whole:
		// Only the moved refs are in hand: they are appended, and when
		// the file is due to be compacted, fetched.loose is removed, so
		// that the next command compares every ref and rewrites it.
		if added > 0 {
			if err := appendHeads(path, add.Bytes(), wait); err != nil {
				os.Remove(snapPath) // the next command compares every ref
				return err
			}
			t.lines += added
		}
		if t.lines > 2*t.live+64 {
			if err := os.Remove(snapPath); err != nil && !os.IsNotExist(err) {
				return err
			}
			return saveStamp(dir, stamp, settled, wait)
		}
	case added == 0 && gone == 0 && fileExists(path):
	case gone == 0 && t.lines+added <= 2*t.live+64 && appendHeads(path, add.Bytes(), wait) == nil:
		t.lines += added
	default:
		var whole bytes.Buffer
		whole.Grow(len(t.refs) * headLineSize)
		for _, r := range t.refs {
			writeHead(&whole, strings.TrimPrefix(r.Name, gitstore.RemotePrefix), r.Hash)
		}
		if err := git.WriteFile(path, whole.Bytes(), 0o600, wait, false); err != nil {
			return err
		}
		gitstore.CountWritten(whole.Len())
		t.lines, t.live = len(t.refs), len(t.refs)
	}
	if t.whole {
		// Every tracking ref is in hand: its digest is made anew.
		g, err := e.Repo.RefsDigester()
		if err != nil {
			return err
		}
		t.digest = gitstore.RefsDigest{}
		for _, r := range t.refs {
			g.Add(&t.digest, r.Name, r.Hash)
		}
	}
	var snap bytes.Buffer
	fmt.Fprintf(&snap, "%s %d %d %s\n", looseMagic, t.lines, t.live, t.digest)
	snap.Grow(len(t.loose) * headLineSize)
	for _, r := range t.loose {
		writeHead(&snap, strings.TrimPrefix(r.Name, gitstore.RemotePrefix), r.Hash)
	}
	if err := git.WriteFile(snapPath, snap.Bytes(), 0o600, wait, false); err != nil {
		return err
	}
	return saveStamp(dir, stamp, settled, wait)
}

// headLineSize is about the size of a line of fetched.heads or
// fetched.loose ("origin/T-000000 <40 hex>\n"), to size their buffers.
const headLineSize = 64

// writeHead appends the line "name hash" of fetched.heads or
// fetched.loose to b.
func writeHead(b *bytes.Buffer, name, hash string) {
	b.WriteString(name)
	b.WriteByte(' ')
	b.WriteString(hash)
	b.WriteByte('\n')
}

// fileExists reports whether path exists: fetched.heads is written, if
// empty, by the first catch-up that compares every ref, so that a later
// one can append to it.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// unsettledLine ends a stamp saved while a change was too recent to
// trust (stampOf): no stamp made afterwards equals it, so the next
// command looks at the tracking refs again, yet the file exists, so that
// command is not taken for a clone's first (the clone hint said again,
// the settings listed for it).
const unsettledLine = "unsettled\n"

// saveStamp writes the stamp; one not settled is written with
// unsettledLine at its end.
func saveStamp(dir string, stamp []byte, settled bool, wait time.Duration) error {
	if !settled {
		stamp = append(slices.Clip(stamp), unsettledLine...)
	}
	return git.WriteFile(filepath.Join(dir, stampFile), stamp, 0o600, wait, false)
}

// readHeads reads fetched.heads; a missing or unreadable file knows none.
// It also returns how many lines the file has.
func readHeads(path string) (map[string]string, int) {
	out := map[string]string{}
	data, err := gitstore.ReadShared(path)
	if err != nil {
		return out, 0
	}
	lines := 0
	for _, l := range strings.Split(string(data), "\n") {
		if name, head, ok := strings.Cut(l, " "); ok {
			out[name] = head
			lines++
		}
	}
	return out, lines
}

// appendHeads appends lines to the heads file under its lock, so that an
// append never meets a rewrite half-way; a missing file is written whole
// by the caller.
func appendHeads(path string, lines []byte, wait time.Duration) error {
	err := git.AppendFile(path, lines, 0, wait, false, -1)
	if err == nil {
		gitstore.CountWritten(len(lines))
	}
	return err
}
