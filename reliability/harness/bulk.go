package harness

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"git-reason/record"
)

// BulkTasks writes n tasks of two records each (a trivial assessment and
// its plan, both made by the real writer in process) into the repository
// at dir through one `git fast-import`, then packs its refs, as a
// repository that has been gc'd holds them. Task i is named
// fmt.Sprintf(prefix+"%06d", i) and assesses its own subject. The
// histories are what the store writes, so they replay clean: the way to
// make thousands of tasks in seconds, for scale tests and benchmarks.
func BulkTasks(ctx context.Context, dir, prefix string, n int) error {
	return bulkImport(ctx, dir, func(w *record.Writer, out *bufio.Writer) error {
		for i := range n {
			if err := bulkPair(ctx, w, out, fmt.Sprintf(prefix+"%06d", i), i); err != nil {
				return err
			}
		}
		return nil
	})
}

// BulkTask is BulkTasks for one task of n records (n even): n/2 trivial
// assessments, each of its own subject, each followed by its plan, as
// the real writer admits them. A task of many records in a second.
func BulkTask(ctx context.Context, dir, task string, n int) error {
	return bulkImport(ctx, dir, func(w *record.Writer, out *bufio.Writer) error {
		for i := range n / 2 {
			if err := bulkPair(ctx, w, out, task, i); err != nil {
				return err
			}
		}
		return nil
	})
}

// BulkTaskT is BulkTask into the repository at dir for a test: it fails
// the test when BulkTask fails.
func BulkTaskT(tb testing.TB, dir, task string, n int) {
	tb.Helper()
	if err := BulkTask(context.Background(), dir, task, n); err != nil {
		tb.Fatal(err)
	}
}

// bulkPair admits the assessment of subject i on task and its plan, and
// writes both commits.
func bulkPair(ctx context.Context, w *record.Writer, out *bufio.Writer, task string, i int) error {
	a, err := w.Append(ctx, task, record.KindAssessment, []byte(fmt.Sprintf(
		`{"subject":"bulk subject %d","question":"which way for %d?","materiality":"trivial","reversibility":"reversible"}`, i, i)))
	if err != nil {
		return err
	}
	p, err := w.Append(ctx, task, record.KindPlan, []byte(fmt.Sprintf(`{"assessment":%q}`, a.ID)))
	if err != nil {
		return err
	}
	if err := bulkCommit(out, task, a.Record); err != nil {
		return err
	}
	return bulkCommit(out, task, p.Record)
}

// bulkImport runs fill with a writer over memory and the input of one
// `git fast-import` into the repository at dir, then packs the refs.
func bulkImport(ctx context.Context, dir string, fill func(*record.Writer, *bufio.Writer) error) error {
	w := &record.Writer{Store: &bulkStore{}, Index: noStanding{}, Actor: "Bulk Writer <bulk@example.invalid>", Origin: "bulk", Keep: true}
	if err := FastImport(ctx, dir, nil, func(out *bufio.Writer) error { return fill(w, out) }); err != nil {
		return err
	}
	if o, err := GitTry(dir, "pack-refs", "--all"); err != nil {
		return fmt.Errorf("git pack-refs: %v: %s", err, o)
	}
	return nil
}

// FastImport runs one `git fast-import --quiet --done` in the repository
// at dir, with env (nil: the caller's environment), and streams fill's
// writes into it, then the closing "done". fill's error comes first;
// else, when fast-import fails, the error carries what it printed.
//
// fast-import deflates each object with a zlib stream of its own, whose
// 256 KiB or so glibc's malloc gives back to the system at each free
// (above its trim threshold, 128 KiB): 18 page faults an object, most of
// the import's CPU time on a virtual machine (5 s of it for 8,000
// objects). Its trim threshold is raised above that (0.2 s).
func FastImport(ctx context.Context, dir string, env []string, fill func(*bufio.Writer) error) error {
	cmd := exec.CommandContext(ctx, "git", "fast-import", "--quiet", "--done")
	if env == nil {
		env = os.Environ()
	}
	cmd.Dir, cmd.Env = dir, append(env[:len(env):len(env)], "MALLOC_TRIM_THRESHOLD_=67108864")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	out := bufio.NewWriterSize(in, 1<<20)
	werr := func() error {
		if err := fill(out); err != nil {
			return err
		}
		if _, err := out.WriteString("done\n"); err != nil {
			return err
		}
		return out.Flush()
	}()
	in.Close()
	err = cmd.Wait()
	if werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("git fast-import: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}

// bulkCommit writes one record's commit on its task's ref: the record's
// blob as the store encodes it, its message and trailers, the actor as
// author and committer at the record's time. fast-import puts it on top of
// the ref's last commit of this stream, so a task's first commit has no
// parent and its second the first.
func bulkCommit(out *bufio.Writer, task string, rec *record.Record) error {
	blob, err := rec.Blob()
	if err != nil {
		return err
	}
	e, err := record.Decode(rec)
	if err != nil {
		return err
	}
	when, err := time.Parse(time.RFC3339Nano, rec.Created)
	if err != nil {
		return err
	}
	// gitstore's tests use this package, so it cannot import gitstore:
	// the ref, the records/ directory and the actor as "Name <email>"
	// are spelled here as the store spells them (the blob is record's).
	msg := record.Message(e)
	fmt.Fprintf(out, "commit refs/reasoning/tasks/%s\n", task)
	fmt.Fprintf(out, "author %s %d +0000\ncommitter %s %d +0000\n", rec.Actor, when.Unix(), rec.Actor, when.Unix())
	fmt.Fprintf(out, "data %d\n%s\n", len(msg), msg)
	fmt.Fprintf(out, "M 100644 inline records/%s\ndata %d\n", rec.FileName(), len(blob))
	out.Write(blob)
	_, err = out.WriteString("\n")
	return err
}

// bulkStore is the smallest record.Store: the records of each task in
// memory, so the writer can admit a plan against its assessment.
type bulkStore struct {
	mu    sync.Mutex
	tasks map[string][]*record.Record
}

func (s *bulkStore) Load(_ context.Context, task string) (string, []*record.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := s.tasks[task]
	return bulkHead(len(recs)), append([]*record.Record(nil), recs...), nil
}

func (s *bulkStore) Append(_ context.Context, task, head string, rec *record.Record) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if head != bulkHead(len(s.tasks[task])) {
		return "", record.ErrConflict
	}
	// Only the last task's records are needed again: memory stays flat.
	s.tasks = map[string][]*record.Record{task: append(s.tasks[task], rec)}
	return bulkHead(len(s.tasks[task])), nil
}

// bulkHead names a task's head by its record count ("" for none).
func bulkHead(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func (s *bulkStore) Tasks(context.Context) ([]record.TaskHead, error) { return nil, nil }

// noStanding is an index with no standing conclusion: bulk tasks reuse
// nothing, and the writer does not scan every task for each assessment.
type noStanding struct{}

func (noStanding) Standing(context.Context, string, string) ([]record.Standing, error) {
	return nil, nil
}

// BulkReusing writes, through one `git fast-import` into the repository
// at dir, each task of tasks with one trivial assessment per standing
// conclusion reused(task) gives (in order), its subject that
// conclusion's subject key: the real writer admits each as a reuse of
// that conclusion, as a clone whose index held it would write it (the
// reused task need not hold it: a fetched record names what it likes).
// Many tasks reusing one conclusion, one task reusing many, or a chain,
// in a second.
func BulkReusing(ctx context.Context, dir string, tasks []string, reused func(task string) []record.Standing) error {
	w := &record.Writer{Store: &bulkStore{}, Actor: "Bulk Writer <bulk@example.invalid>", Origin: "bulk", Keep: true}
	return FastImport(ctx, dir, nil, func(out *bufio.Writer) error {
		for _, task := range tasks {
			for _, s := range reused(task) {
				w.Index = oneStanding{s}
				a, err := w.Append(ctx, task, record.KindAssessment, []byte(fmt.Sprintf(
					`{"subject":%q,"question":"as in %s?","materiality":"trivial","reversibility":"reversible"}`, s.SubjectKey, s.Task)))
				if err != nil {
					return err
				}
				if err := bulkCommit(out, task, a.Record); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// oneStanding is an index whose one standing conclusion is s.
type oneStanding struct{ s record.Standing }

func (o oneStanding) Standing(_ context.Context, key, skip string) ([]record.Standing, error) {
	if o.s.SubjectKey != key || o.s.Task == skip {
		return nil, nil
	}
	return []record.Standing{o.s}, nil
}
