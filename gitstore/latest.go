package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"git-reason/record"
)

// TaskLatest is a task's head and the creation time of its newest record
// (the largest created, as the records spell it).
type TaskLatest struct {
	Task, Head, Latest string
}

// latestMagic starts .git/reason/latest; its number changes with the
// file's shape.
const latestMagic = "git reason latest 6\n"

// latestSeal makes and checks the MAC that starts each line of the latest
// file: an HMAC-SHA256 under the repository key (verified.key) of the
// line's head, time and task, of the header the file was written with and
// of the MAC of the line before it, so that a line edited (another head,
// an older time, another task), moved to a file of other refs, moved
// within the file or after a line deleted matches nothing. The file ends
// with a line "<MAC> end" chained the same way, so that lines deleted at
// its end are seen too. A line that does not match, or an end not
// reached, makes the file untrusted: Newest makes it again from the refs.
// The chain costs nothing more than the MAC of each line read: a reader
// that stops after n lines checks n MACs, as before.
type latestSeal struct {
	h      hash.Hash
	header [sha256.Size]byte
	sum    []byte
	prev   string // the MAC of the line before, "" before the first
}

func newLatestSeal(key []byte, header string) *latestSeal {
	return &latestSeal{h: hmac.New(sha256.New, key), header: sha256.Sum256([]byte(header))}
}

// mac is the MAC, 32 hex digits, of the line after l.prev that holds
// text: "<head> <time> <task>" (two spaces at least), or "end".
func (l *latestSeal) mac(text string) string {
	l.h.Reset()
	l.h.Write(l.header[:])
	io.WriteString(l.h, l.prev)
	io.WriteString(l.h, "\x00")
	io.WriteString(l.h, text)
	l.sum = l.h.Sum(l.sum[:0])
	return hex.EncodeToString(l.sum[:16])
}

// line is t as the file's next line.
func (l *latestSeal) line(t TaskLatest) string {
	text := t.Head + " " + t.Latest + " " + t.Task
	l.prev = l.mac(text)
	return l.prev + " " + text + "\n"
}

// end is the file's last line.
func (l *latestSeal) end() string {
	l.prev = l.mac("end")
	return l.prev + " end\n"
}

// parse reads the file's next line: end is true for its last line, ok
// false when the line does not read or its MAC does not match.
func (l *latestSeal) parse(line string) (t TaskLatest, end, ok bool) {
	mac, text, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
	if !ok || !strings.HasSuffix(line, "\n") || !hmac.Equal([]byte(mac), []byte(l.mac(text))) {
		return TaskLatest{}, false, false
	}
	l.prev = mac
	if text == "end" {
		return TaskLatest{}, true, true
	}
	head, rest, ok1 := strings.Cut(text, " ")
	latest, task, ok2 := strings.Cut(rest, " ")
	return TaskLatest{Task: task, Head: head, Latest: latest}, false, ok1 && ok2
}

// errLatestForged stops a read of the latest file at a line whose MAC
// does not match.
var errLatestForged = errors.New("latest: a line does not match its MAC")

// Newest calls fn with every task that reads and the creation time of its
// newest record, newest first (the same time: by task name, last first,
// as log orders lines of the same time), until fn returns false. It reads
// .git/reason/latest, which lists them in that order, "<head> <created>
// <task>" a line, after a header saying which task refs it was made from
// (latestHeader: packed-refs' identity, the loose task refs' count and
// digest; .git/reason/latest.loose holds their values). What the task
// refs are now is taken from .git/reason/latest.now while the stamp it
// keeps (Repo.RefsStamp: packed-refs and the directories of the task
// refs) is unchanged: then no task ref is listed, whatever their number,
// loose or packed. While the file's header is the refs' now, no task ref
// moved, and Newest reads the file only as far as fn goes: `log -n N`
// reads the few lines and tasks that hold the newest records. While
// packed-refs is the file's but loose task refs differ (a write, a pull,
// a plain git fetch and its catch-up: each leaves the refs it moves loose
// until git packs them), the tasks that moved are those loose refs:
// Newest reads them alone and merges them into the file's order as it
// reads, and keeps them in latest.now, so that the commands after it,
// while nothing else moved, merge them without listing or reading a task
// (up to latestDelta moved tasks). Otherwise the list is made again from
// the refs, reading only the tasks whose head differs from the file's
// line, and written back.
func (s *Store) Newest(ctx context.Context, fn func(TaskLatest) bool) error {
	dir := filepath.Join(s.Repo.CommonDir, "reason")
	path := filepath.Join(dir, "latest")
	key, err := repoKey(dir, true)
	if err != nil {
		return err
	}
	// What the refs are is taken before they are read, so that a ref
	// moved meanwhile makes the file stale, never wrongly current.
	now, err := s.refsNow(dir, key)
	if err != nil {
		return err
	}
	// The tasks fn was given, so that after a line that does not match
	// its MAC the list made from the refs goes on where the file stopped.
	given := map[string]bool{}
	give := func(l TaskLatest) bool {
		given[l.Task] = true
		return fn(l)
	}
	f, err := os.Open(path)
	if err == nil {
		defer f.Close()
		br := bufio.NewReaderSize(f, 16<<10)
		was, err := readLatestHeader(br)
		if err != nil {
			return err
		}
		var moved map[string]TaskLatest
		switch {
		case was == now.header:
			now.keep(dir, key, "", nil)
		case now.fresh && now.base != "" && now.base == digestOf(was):
			moved = now.moved
		default:
			if err := now.list(s); err != nil {
				return err
			}
			if m, ok := s.latestMoved(dir, was, now); ok {
				moved = m
				now.keep(dir, key, digestOf(was), moved)
			}
		}
		switch {
		case was == now.header:
			if err := streamLatest(ctx, br, newLatestSeal(key, was), give); !errors.Is(err, errLatestForged) {
				return err
			}
		case moved != nil:
			if err := streamMerged(ctx, br, newLatestSeal(key, was), moved, give); !errors.Is(err, errLatestForged) {
				return err
			}
		}
	}
	if err := now.list(s); err != nil {
		return err
	}
	out, err := s.latestFromRefs(ctx, path, key)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString(now.header)
	seal := newLatestSeal(key, now.header)
	for _, l := range out {
		b.WriteString(seal.line(l))
	}
	b.WriteString(seal.end())
	// The loose refs the header names first: a latest.loose of another
	// header does not match its digest, and is not used.
	if writeFileAtomic(filepath.Join(dir, latestLooseFile), now.loose) == nil && writeFileAtomic(path, b.Bytes()) == nil {
		now.keep(dir, key, "", nil)
	} // else rebuilt next time
	for _, l := range out {
		if given[l.Task] {
			continue
		}
		if !fn(l) {
			break
		}
	}
	return nil
}

// latestLooseFile holds the loose task refs a latest file's header
// counts and digests, a line "<hash> <ref>" each.
const latestLooseFile = "latest.loose"

// latestHeader is the header of a latest file made from the refs as they
// are now, and the loose task refs it names, as latest.loose holds them.
func (s *Store) latestHeader() (header string, loose []byte, err error) {
	id, err := s.Repo.packedID()
	if err != nil {
		return "", nil, err
	}
	refs, err := s.Repo.LooseRefs(TaskPrefix)
	if err != nil {
		return "", nil, err
	}
	var b bytes.Buffer
	for _, r := range refs {
		fmt.Fprintf(&b, "%s %s\n", r.Hash, r.Name)
	}
	return fmt.Sprintf("%spacked %s\nloose %d %s\n", latestMagic, id, len(refs), digestOf(b.String())), b.Bytes(), nil
}

// digestOf is the SHA-256 of s, in hex.
func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// readLatestHeader reads the file's header: its magic and the two lines
// after it ("" when it does not read).
func readLatestHeader(br *bufio.Reader) (string, error) {
	var b strings.Builder
	for range 3 {
		line, err := br.ReadString('\n')
		countShared(len(line))
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		b.WriteString(line)
	}
	if !strings.HasPrefix(b.String(), latestMagic) {
		return "", nil
	}
	return b.String(), nil
}

// latestDelta is how many moved tasks Newest merges into the file as it
// reads; past that it writes the file again (a rewrite then costs less
// than the tasks read at every command).
const latestDelta = 256

// latestMoved returns, when the file's header was (its lines next) was
// made with the packed-refs of now (the refs' listing now), the tasks
// whose loose ref differs from the file's, each at its current head with
// its newest record's time (a task gone or that does not read: no
// Latest). The file's loose refs are latest.loose, when it matches the
// header's digest. ok is false when the packed-refs differ, latest.loose
// does not match, or more than latestDelta tasks moved.
func (s *Store) latestMoved(dir, was string, now *refsNow) (map[string]TaskLatest, bool) {
	// header: magic, "packed <id>", "loose <n> <digest>".
	wasLines, nowLines := strings.Split(was, "\n"), strings.Split(now.header, "\n")
	if len(wasLines) < 3 || len(nowLines) < 3 || wasLines[1] != nowLines[1] {
		return nil, false
	}
	data, err := ReadShared(filepath.Join(dir, latestLooseFile))
	if err != nil || fmt.Sprintf("%d %s", bytes.Count(data, []byte{'\n'}), digestOf(string(data))) != strings.TrimPrefix(wasLines[2], "loose ") {
		return nil, false
	}
	loose := func(data []byte) map[string]string {
		out := map[string]string{}
		for _, l := range strings.Split(string(data), "\n") {
			if hash, ref, ok := strings.Cut(l, " "); ok {
				out[ref] = hash
			}
		}
		return out
	}
	before, after := loose(data), loose(now.loose)
	moved := map[string]TaskLatest{}
	for ref, hash := range after {
		if before[ref] != hash {
			moved[ref] = TaskLatest{Head: hash}
		}
	}
	for ref := range before {
		if _, ok := after[ref]; !ok {
			// No longer loose, packed-refs unchanged: deleted, or back
			// to its packed value.
			hash, err := s.Repo.ReadRef(ref)
			if err != nil {
				return nil, false
			}
			moved[ref] = TaskLatest{Head: hash}
		}
	}
	if len(moved) > latestDelta {
		return nil, false
	}
	out := make(map[string]TaskLatest, len(moved))
	for ref, l := range moved {
		task := strings.TrimPrefix(ref, TaskPrefix)
		l.Task = task
		if l.Head != "" && record.CheckTask(task) == nil {
			l.Latest = s.taskLatest(task, l.Head)
		}
		out[task] = l
	}
	return out, true
}

// taskLatest is the creation time of the newest record of task at head,
// "" when it has none, has one this file cannot hold, or does not read
// (reported to Skip).
func (s *Store) taskLatest(task, head string) string {
	_, recs, err := s.loadTask(task, head)
	if err != nil {
		s.Skip(task, err)
		return ""
	}
	latest := ""
	for _, r := range recs {
		if r.Created > latest {
			latest = r.Created
		}
	}
	if strings.ContainsAny(latest, " \n") {
		return ""
	}
	return latest
}

// newerLatest orders lines as the file does: newest first; the same time,
// the task named last first.
func newerLatest(a, b TaskLatest) int {
	if c := strings.Compare(b.Latest, a.Latest); c != 0 {
		return c
	}
	return strings.Compare(b.Task, a.Task)
}

// streamMerged reads the file's lines from br, leaving out the tasks in
// moved, and merges into them, in the file's order, the moved tasks that
// read, calling fn.
func streamMerged(ctx context.Context, br *bufio.Reader, seal *latestSeal, moved map[string]TaskLatest, fn func(TaskLatest) bool) error {
	var extra []TaskLatest
	for _, l := range moved {
		if l.Latest != "" {
			extra = append(extra, l)
		}
	}
	slices.SortFunc(extra, newerLatest)
	stopped := false
	err := streamLatest(ctx, br, seal, func(l TaskLatest) bool {
		if _, ok := moved[l.Task]; ok {
			return true
		}
		for len(extra) > 0 && newerLatest(extra[0], l) < 0 {
			if !fn(extra[0]) {
				stopped = true
				return false
			}
			extra = extra[1:]
		}
		if !fn(l) {
			stopped = true
			return false
		}
		return true
	})
	if err != nil || stopped {
		return err
	}
	for _, l := range extra {
		if !fn(l) {
			break
		}
	}
	return nil
}

// streamLatest reads the lines after a header, calling fn, checking each
// line's MAC with seal: errLatestForged at the first that does not match,
// or at the file's end without its end line (lines deleted at the end).
func streamLatest(ctx context.Context, br *bufio.Reader, seal *latestSeal, fn func(TaskLatest) bool) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := br.ReadString('\n')
		countShared(len(line))
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		l, end, ok := seal.parse(line)
		if !ok {
			return errLatestForged
		}
		if end || !fn(l) {
			return nil
		}
	}
}

// latestFromRefs lists every task that reads with its newest record's
// time, newest first, taking each task whose head is unchanged from a line
// of the file at path (any header) that matches its MAC under key, and
// reading the others.
func (s *Store) latestFromRefs(ctx context.Context, path string, key []byte) ([]TaskLatest, error) {
	tasks, err := s.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	cached := map[string]TaskLatest{}
	if data, err := ReadShared(path); err == nil && bytes.HasPrefix(data, []byte(latestMagic)) {
		lines := strings.Split(string(data), "\n")
		if len(lines) > 3 {
			// The header: magic, "packed <id>", "loose <n> <digest>".
			seal := newLatestSeal(key, strings.Join(lines[:3], "\n")+"\n")
			for _, line := range lines[3:] {
				// Past a line that does not match, the chain holds no
				// more: those tasks are read.
				l, end, ok := seal.parse(line + "\n")
				if !ok || end {
					break
				}
				cached[l.Task] = l
			}
		}
	}
	out := make([]TaskLatest, 0, len(tasks))
	for i, t := range tasks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.Progress("Reading tasks", i, len(tasks))
		if c, ok := cached[t.Task]; ok && c.Head == t.Head {
			out = append(out, c)
			continue
		}
		l := TaskLatest{Task: t.Task, Head: t.Head, Latest: s.taskLatest(t.Task, t.Head)}
		if l.Latest == "" {
			continue // no record, a time this file cannot hold, or it does not read
		}
		out = append(out, l)
	}
	s.Progress("Reading tasks", len(tasks), len(tasks))
	slices.SortFunc(out, newerLatest)
	return out, nil
}
