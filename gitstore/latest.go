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
	"strconv"
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
const latestMagic = "git reason latest 5\n"

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
// as log orders lines of the same time), until fn
// returns false. It reads .git/reason/latest, which lists them in that
// order, "<head> <created> <task>" a line, after a header saying which
// task refs it was made from: packed-refs (the file's identity: device
// and inode, size, modification time) and every loose task ref with its
// value. While packed-refs is that file and the loose task refs are
// those, no task ref moved, and Newest reads the file only as far as fn
// goes: `log -n N` reads the few lines and tasks that hold the newest
// records, not every ref. While packed-refs is that file but loose task
// refs differ (a write, a pull, a plain git fetch and its catch-up: each
// leaves the refs it moves loose until git packs them), the tasks that
// moved are those loose refs: Newest reads them alone and merges them
// into the file's order as it reads, writing nothing, so its cost is the
// refs moved since git last packed refs (up to latestDelta), not every
// ref. Otherwise the list is made again from the refs, reading only the
// tasks whose head differs from the file's line, and written back.
func (s *Store) Newest(ctx context.Context, fn func(TaskLatest) bool) error {
	dir := filepath.Join(s.Repo.CommonDir, "reason")
	path := filepath.Join(dir, "latest")
	// What the refs are is taken before they are read, so that a ref
	// moved meanwhile makes the file stale, never wrongly current.
	header, err := s.latestHeader()
	if err != nil {
		return err
	}
	key, err := repoKey(dir, true)
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
		current, err := readLatestHeader(br, header)
		if err != nil {
			return err
		}
		if current {
			if err := streamLatest(ctx, br, newLatestSeal(key, header), give); !errors.Is(err, errLatestForged) {
				return err
			}
		} else {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			br.Reset(f)
			if moved, was, ok := s.latestMoved(br, header); ok {
				if err := streamMerged(ctx, br, newLatestSeal(key, was), moved, give); !errors.Is(err, errLatestForged) {
					return err
				}
			}
		}
	}
	out, err := s.latestFromRefs(ctx, path, key)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString(header)
	seal := newLatestSeal(key, header)
	for _, l := range out {
		b.WriteString(seal.line(l))
	}
	b.WriteString(seal.end())
	_ = writeFileAtomic(path, b.Bytes()) // rebuilt next time if it cannot be written
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

// latestHeader is the header of a latest file made from the refs as they
// are now.
func (s *Store) latestHeader() (string, error) {
	id, err := s.Repo.packedID()
	if err != nil {
		return "", err
	}
	loose, err := s.Repo.looseRefs(TaskPrefix)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(latestMagic)
	fmt.Fprintf(&b, "packed %s\nloose %d\n", id, len(loose))
	for _, r := range loose {
		fmt.Fprintf(&b, "%s %s\n", r.Hash, r.Name)
	}
	return b.String(), nil
}

// readLatestHeader reads the file's header and reports whether it is
// header.
func readLatestHeader(br *bufio.Reader, header string) (bool, error) {
	got := make([]byte, len(header))
	n, err := io.ReadFull(br, got)
	countShared(n)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return string(got) == header, nil
}

// latestDelta is how many moved tasks Newest merges into the file as it
// reads; past that it writes the file again (a rewrite then costs less
// than the tasks read at every command).
const latestDelta = 256

// latestMoved reads the header of the file br holds and, when it was made
// with the packed-refs of header (the current refs), returns the tasks
// whose loose ref differs from the file's, each at its current head with
// its newest record's time (a task gone or that does not read: no Latest),
// br then at the file's first line, and the file's header. ok is false
// when the packed-refs differ, the header does not read, or more than
// latestDelta tasks moved.
func (s *Store) latestMoved(br *bufio.Reader, header string) (map[string]TaskLatest, string, bool) {
	// header: magic, "packed <id>", "loose <n>", n lines "<hash> <ref>".
	now := strings.Split(strings.TrimSuffix(header, "\n"), "\n")
	var was []string
	for i := 0; i < 3 || i < 3+looseCount(was); i++ {
		line, err := br.ReadString('\n')
		countShared(len(line))
		if err != nil {
			return nil, "", false
		}
		was = append(was, strings.TrimSuffix(line, "\n"))
	}
	if was[0]+"\n" != latestMagic || was[1] != now[1] {
		return nil, "", false
	}
	loose := func(lines []string) map[string]string {
		out := map[string]string{}
		for _, l := range lines[3:] {
			if hash, ref, ok := strings.Cut(l, " "); ok {
				out[ref] = hash
			}
		}
		return out
	}
	before, after := loose(was), loose(now)
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
				return nil, "", false
			}
			moved[ref] = TaskLatest{Head: hash}
		}
	}
	if len(moved) > latestDelta {
		return nil, "", false
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
	return out, strings.Join(was, "\n") + "\n", true
}

// looseCount is the n of a header's "loose <n>" line, once read.
func looseCount(lines []string) int {
	if len(lines) < 3 {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimPrefix(lines[2], "loose "))
	if err != nil || n < 0 {
		return 0
	}
	return n
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
	if data, err := readShared(path); err == nil && bytes.HasPrefix(data, []byte(latestMagic)) {
		lines := strings.Split(string(data), "\n")
		if len(lines) > 2 {
			n, _ := strconv.Atoi(strings.TrimPrefix(lines[2], "loose "))
			at := min(len(lines), 3+max(n, 0))
			seal := newLatestSeal(key, strings.Join(lines[:at], "\n")+"\n")
			for _, line := range lines[at:] {
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
	for _, t := range tasks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
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
	slices.SortFunc(out, newerLatest)
	return out, nil
}
