package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// TaskLatest is a task's head and the creation time of its newest record
// (the largest created, as the records spell it).
type TaskLatest struct {
	Task, Head, Latest string
}

// latestMagic starts .git/reason/latest; its number changes with the
// file's shape.
const latestMagic = "git reason latest 1\n"

// Latest returns every task that reads with the creation time of its
// newest record, from .git/reason/latest: one line per task ("<head>
// <created> <task>"), keyed by head. Only the tasks whose head moved are
// read, so `log -n N` across every task reads the heads, this file, and
// then the few tasks that hold the newest records, not every history.
func (s *Store) Latest(ctx context.Context) ([]TaskLatest, error) {
	tasks, err := s.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(s.Repo.CommonDir, "reason", "latest")
	cached := map[string]TaskLatest{}
	if data, err := os.ReadFile(path); err == nil && bytes.HasPrefix(data, []byte(latestMagic)) {
		sc := bufio.NewScanner(bytes.NewReader(data[len(latestMagic):]))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f := strings.SplitN(sc.Text(), " ", 3)
			if len(f) == 3 {
				cached[f[2]] = TaskLatest{Task: f[2], Head: f[0], Latest: f[1]}
			}
		}
	}
	out := make([]TaskLatest, 0, len(tasks))
	changed := len(cached) != len(tasks)
	for _, t := range tasks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if c, ok := cached[t.Task]; ok && c.Head == t.Head {
			out = append(out, c)
			continue
		}
		changed = true
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
		if l.Latest == "" || strings.Contains(l.Latest, " ") {
			continue // no record, or a time this file cannot hold
		}
		out = append(out, l)
	}
	if changed {
		var b bytes.Buffer
		b.WriteString(latestMagic)
		for _, l := range out {
			fmt.Fprintf(&b, "%s %s %s\n", l.Head, l.Latest, l.Task)
		}
		_ = writeFileAtomic(path, b.Bytes()) // rebuilt next time if it cannot be written
	}
	return out, nil
}
