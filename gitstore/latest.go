package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// TaskLatest is a task's head and the creation time of its newest record
// (the largest created, as the records spell it).
type TaskLatest struct {
	Task, Head, Latest string
}

// latestMagic starts .git/reason/latest; its number changes with the
// file's shape.
const latestMagic = "git reason latest 3\n"

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
// records, not every ref. Otherwise the list is made again from the refs,
// reading only the tasks whose head differs from the file's line, and
// written back.
func (s *Store) Newest(ctx context.Context, fn func(TaskLatest) bool) error {
	path := filepath.Join(s.Repo.CommonDir, "reason", "latest")
	// What the refs are is taken before they are read, so that a ref
	// moved meanwhile makes the file stale, never wrongly current.
	header, err := s.latestHeader()
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err == nil {
		defer f.Close()
		br := bufio.NewReaderSize(f, 16<<10)
		if current, err := readLatestHeader(br, header); err != nil || current {
			if err != nil {
				return err
			}
			return streamLatest(ctx, br, fn)
		}
	}
	out, err := s.latestFromRefs(ctx, path)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString(header)
	for _, l := range out {
		fmt.Fprintf(&b, "%s %s %s\n", l.Head, l.Latest, l.Task)
	}
	_ = writeFileAtomic(path, b.Bytes()) // rebuilt next time if it cannot be written
	for _, l := range out {
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

// streamLatest reads the lines after a current header, calling fn.
func streamLatest(ctx context.Context, br *bufio.Reader, fn func(TaskLatest) bool) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := br.ReadString('\n')
		countShared(len(line))
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		l, ok := parseLatest(line)
		if ok && !fn(l) {
			return nil
		}
	}
}

func parseLatest(line string) (TaskLatest, bool) {
	head, rest, ok1 := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
	latest, task, ok2 := strings.Cut(rest, " ")
	return TaskLatest{Task: task, Head: head, Latest: latest}, ok1 && ok2
}

// latestFromRefs lists every task that reads with its newest record's
// time, newest first, taking each task whose head is unchanged from the
// file at path (any header) and reading the others.
func (s *Store) latestFromRefs(ctx context.Context, path string) ([]TaskLatest, error) {
	tasks, err := s.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	cached := map[string]TaskLatest{}
	if data, err := readShared(path); err == nil && bytes.HasPrefix(data, []byte(latestMagic)) {
		lines := strings.Split(string(data), "\n")
		if len(lines) > 2 {
			n, _ := strconv.Atoi(strings.TrimPrefix(lines[2], "loose "))
			for _, line := range lines[min(len(lines), 3+n):] {
				if l, ok := parseLatest(line); ok {
					cached[l.Task] = l
				}
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
		_, recs, err := s.loadTask(t.Task, t.Head)
		if err != nil {
			s.Skip(t.Task, err)
			continue
		}
		l := TaskLatest{Task: t.Task, Head: t.Head}
		for _, r := range recs {
			if r.Created > l.Latest {
				l.Latest = r.Created
			}
		}
		if l.Latest == "" || strings.ContainsAny(l.Latest, " \n") {
			continue // no record, or a time this file cannot hold
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b TaskLatest) int {
		if c := strings.Compare(b.Latest, a.Latest); c != 0 {
			return c
		}
		return strings.Compare(b.Task, a.Task)
	})
	return out, nil
}
