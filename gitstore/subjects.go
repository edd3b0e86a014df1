package gitstore

import (
	"bytes"
	"context"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// The subject index answers "which tasks have a standing conclusion on
// this subject" for every assessment the writer admits, at a cost that
// does not grow with the number of tasks: one small file per subject key,
// .git/reason/subjects/<sha256 of the key>.json, listing the tasks that
// had a standing conclusion on it and each task's head then. A lookup
// reads that one file and the refs of the tasks it lists; a listed task
// whose head moved is derived again (and dropped when it no longer
// stands on the subject). A task is added to a subject's file when this
// store writes a conclusion (Append), when pull moves its ref
// (NoteStanding), and when a read across every task finds its head moved
// (Index.Tasks: status, handover and the like), which also catches refs
// moved by plain git. The file "complete" says that every task was
// indexed once; without it (a new clone, a cache removed) the first
// lookup indexes every task, reading the records of those whose trees
// name a conclusion (headsWithout). The refs stay the truth: an entry is used
// only while its head is the ref's. What a ref moved by plain git and not
// seen by such a read yet can cost is a reuse not made (a review planned
// that could have been spared), never a reuse of a conclusion that does
// not stand. Each entry carries a MAC (Sealed's, under the repository
// key, of the release that derived it, the subject, the task, its head
// and its standing conclusions): an entry a stranger wrote or edited (a
// trivial conclusion made to stand on another subject, critical, to spare
// that subject's review), or one another release derived, is derived
// again from the ref, as a moved head is.

// subjectsVersion changes whenever the files' shape or meaning changes.
const subjectsVersion = 2

type subjectFile struct {
	Version int                     `json:"version"`
	Key     string                  `json:"key"`
	Tasks   map[string]subjectEntry `json:"tasks"`
}

type subjectEntry struct {
	Head     string            `json:"head"`
	Standing []record.Standing `json:"standing"`
	MAC      string            `json:"mac"`
}

// subjectSeal is the MAC of the entries of subject key's file, nil
// without a repository key (and create false, or none can be made). Its
// scope names this release too: an entry is the standing conclusions the
// release that wrote it derived, and another release's rules may derive
// others from the same records.
func (s *Store) subjectSeal(key string, create bool) *Sealed {
	dir := filepath.Join(s.Repo.CommonDir, "reason")
	k, err := repoKey(dir, create)
	if err != nil || k == nil {
		return nil
	}
	return &Sealed{name: "subjects", scope: release() + "\x00" + key, dir: dir, key: k}
}

// sealed is e with its MAC as task's entry under seal.
func (e subjectEntry) sealed(seal *Sealed, task string) subjectEntry {
	e.MAC = seal.mac(task, e.Head, mustMarshal(e.Standing))
	return e
}

// holds reports whether e's MAC is its own as task's entry under seal.
func (e subjectEntry) holds(seal *Sealed, task string) bool {
	return seal != nil && hmac.Equal([]byte(e.MAC), []byte(seal.mac(task, e.Head, mustMarshal(e.Standing))))
}

func (s *Store) subjectsDir() string { return filepath.Join(s.Repo.CommonDir, "reason", "subjects") }

func (s *Store) subjectPath(key string) string {
	return filepath.Join(s.subjectsDir(), fileName(key)+".json")
}

func (s *Store) readSubject(key string) subjectFile {
	var f subjectFile
	data, err := os.ReadFile(s.subjectPath(key))
	if err != nil || json.Unmarshal(data, &f) != nil || f.Version != subjectsVersion || f.Key != key || f.Tasks == nil {
		return subjectFile{Version: subjectsVersion, Key: key, Tasks: map[string]subjectEntry{}}
	}
	return f
}

func (s *Store) writeSubject(f subjectFile) {
	path := s.subjectPath(f.Key)
	if len(f.Tasks) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			_ = writeFileAtomic(path, mustMarshal(f))
		}
		return
	}
	// A file that cannot be written costs a derivation next time.
	_ = writeFileAtomic(path, mustMarshal(f))
}

func mustMarshal(v any) []byte {
	data, _ := json.Marshal(v)
	return data
}

// noteStanding records, for each subject task stands on at head, that it
// does (standing: the task's standing conclusions there). Subjects it no
// longer stands on are left to the lookups, which find its head moved.
func (s *Store) noteStanding(task, head string, standing []record.Standing) {
	byKey := map[string][]record.Standing{}
	for _, st := range standing {
		byKey[st.SubjectKey] = append(byKey[st.SubjectKey], st)
	}
	for key, sts := range byKey {
		seal := s.subjectSeal(key, true)
		if seal == nil {
			continue // the next read across every task notes it
		}
		lock, err := git.TakeLock(s.subjectPath(key), lockTimeout)
		if err != nil {
			continue // the next read across every task notes it
		}
		f := s.readSubject(key)
		f.Tasks[task] = subjectEntry{Head: head, Standing: sts}.sealed(seal, task)
		data := mustMarshal(f)
		if lock.Commit(data, 0o600) != nil {
			lock.Abandon()
		}
	}
}

// NoteStanding indexes task at its current head by subject: pull calls it
// for every task whose ref it moved.
func (s *Store) NoteStanding(ctx context.Context, task string) error {
	head, recs, err := s.Load(ctx, task)
	if err != nil || head == "" {
		return err
	}
	return s.NoteStandingAt(task, head, recs)
}

// NoteStandingAt is NoteStanding of task at head from its records recs,
// read and checked by the caller (an integration's replay of that head),
// so that the task is not read again.
func (s *Store) NoteStandingAt(task, head string, recs []*record.Record) error {
	st, err := record.Derive(task, recs)
	if err != nil {
		return err
	}
	s.noteStanding(task, head, st.Standing())
	return nil
}

// indexAllSubjects indexes every task once, when no complete index
// exists: a new clone's first assessment, or a cache removed.
func (s *Store) indexAllSubjects(ctx context.Context) error {
	complete := filepath.Join(s.subjectsDir(), "complete")
	if data, err := os.ReadFile(complete); err == nil && string(data) == subjectsMark() {
		return nil
	}
	tasks, err := s.Tasks(ctx)
	if err != nil {
		return err
	}
	without := s.headsWithout(tasks)
	for _, t := range tasks {
		if err := ctx.Err(); err != nil {
			return err
		}
		if without[t.Head] {
			continue // no standing conclusion: nothing to note
		}
		st, _, err := s.deriveAt(t.Task, t.Head)
		if err != nil {
			s.Skip(t.Task, err)
			continue
		}
		s.noteStanding(t.Task, t.Head, st.Standing())
	}
	// The mark is a cache: another writer holding its lock is writing the
	// same mark, and one that cannot be written costs a full index next
	// time. Failing the assessment for it failed concurrent first writes.
	_ = writeFileAtomic(complete, []byte(subjectsMark()))
	return nil
}

func subjectsMark() string { return "git reason subject index 2\n" }

// conclusionName is what the name of a conclusion's file holds
// (record.Record.FileName: <clock>-<kind>-<id>.json).
const conclusionName = "-" + string(record.KindConclusion) + "-"

// headsWithout returns the heads of tasks whose records/ trees name no
// conclusion file. A task stands on a subject only by a conclusion, and
// a record reads only under its own file name (record.ReadStored), which
// names its kind: such a task has no standing conclusion, so the first
// index of a clone derives the other tasks alone (a new clone's first
// assessment read and cached every task: 3.4 s and 5,000 cache files at
// 5,000 tasks of no conclusion). A head whose objects do not read is not
// returned (deriveAt then says why). The objects are asked for level by
// level, every task at once: the commits, then their root trees, then
// the records/ trees, each level in two requests to one batch source
// (sizes, then contents), where reading each task's three objects in
// turn cost six round trips to git cat-file a task (and, once the budget
// of single reads was spent, go-git decoding the packs' whole index).
func (s *Store) headsWithout(tasks []record.TaskHead) map[string]bool {
	src, done := s.batchSource()
	without := map[string]bool{}
	commits := &level{of: map[string][]string{}}
	for _, t := range tasks {
		commits.add(t.Head, t.Head)
	}
	roots := &level{of: map[string][]string{}}
	err := commits.read(src, "commit", maxCommitBytes, func(h string, heads []string, data []byte) {
		if c, err := decodeCommit(h, data); err == nil {
			roots.add(c.TreeHash.String(), heads...)
		}
	})
	subs := &level{of: map[string][]string{}}
	if err == nil {
		err = roots.read(src, "tree", maxTreeBytes, func(h string, heads []string, data []byte) {
			switch sub, err := rootRecords(h, data); {
			case err != nil:
			case sub == "": // no records
				for _, head := range heads {
					without[head] = true
				}
			default:
				subs.add(sub, heads...)
			}
		})
	}
	if err == nil {
		err = subs.read(src, "records tree", maxTreeBytes, func(h string, heads []string, data []byte) {
			t, err := parseTree(h, data, nil)
			if err != nil {
				return
			}
			for i := range t.ents {
				if bytes.Contains(t.name(i), []byte(conclusionName)) {
					return
				}
			}
			for _, head := range heads {
				without[head] = true
			}
		})
	}
	done(err != nil)
	return without
}

// level is one level of headsWithout's reads: each object, in the order
// first asked for, and the heads that reach it.
type level struct {
	hashes []string
	of     map[string][]string
}

func (l *level) add(h string, heads ...string) {
	if _, ok := l.of[h]; !ok {
		l.hashes = append(l.hashes, h)
	}
	l.of[h] = append(l.of[h], heads...)
}

// read asks src for the size of every object of the level, then for the
// content of each that is of type what (as checkInfo names it) and at
// most limit bytes, and hands each to fn, which must not keep it. An
// object that does not read leaves its heads out of the next level; an
// error is src's own (the reader failed).
func (l *level) read(src objectSource, what string, limit int64, fn func(h string, heads []string, data []byte)) error {
	if len(l.hashes) == 0 {
		return nil
	}
	infos, err := src.Infos(l.hashes)
	if err != nil {
		return err
	}
	var readable []string
	for i, h := range l.hashes {
		if checkInfo(h, infos[i], what, limit) == nil {
			readable = append(readable, h)
		}
	}
	return src.Contents(readable, func(i int, typ string, data []byte) error {
		if h := readable[i]; checkType(h, typ, what) == nil {
			fn(h, l.of[h], data)
		}
		src.Release(data)
		return nil
	})
}

// standingOn returns the standing conclusions on key of every task but
// skip, from the subject's file, each listed task's entry brought up to
// date with its ref.
func (s *Store) standingOn(ctx context.Context, key, skip string) ([]record.Standing, error) {
	if err := s.indexAllSubjects(ctx); err != nil {
		return nil, err
	}
	f := s.readSubject(key)
	var out []record.Standing
	changed := false
	seal := s.subjectSeal(key, len(f.Tasks) > 0)
	for task, e := range f.Tasks {
		if task == skip {
			continue // the writer has that task in hand; its entry stays
		}
		head, err := s.Repo.ReadRef(TaskRef(task))
		var broken *BrokenRefError
		if errors.As(err, &broken) {
			// A ref whose file is broken offers no conclusion (a write
			// asks for review instead) and stops no write; its entry
			// stays for when the file is mended.
			s.Skip(task, err)
			continue
		}
		if err != nil {
			return nil, err
		}
		if head != e.Head || !e.holds(seal, task) {
			changed = true
			e, err = s.subjectEntryAt(task, head, key)
			if err != nil {
				s.Skip(task, err)
			}
			if err != nil || len(e.Standing) == 0 || seal == nil {
				delete(f.Tasks, task)
				continue
			}
			f.Tasks[task] = e.sealed(seal, task)
		}
		out = append(out, e.Standing...)
	}
	if changed {
		s.writeSubject(f)
	}
	record.SortStanding(out)
	return out, nil
}

// subjectEntryAt is task's entry for key at head (no standing when the
// task is gone or no longer stands on key).
func (s *Store) subjectEntryAt(task, head, key string) (subjectEntry, error) {
	e := subjectEntry{Head: head}
	if head == "" {
		return e, nil
	}
	st, _, err := s.deriveAt(task, head)
	if err != nil {
		return e, err
	}
	for _, c := range st.Standing() {
		if c.SubjectKey == key {
			e.Standing = append(e.Standing, c)
		}
	}
	return e, nil
}

// indexConclusion indexes task by subject at head, the commit Append just
// made of rec on top of prev: a conclusion is what makes a task stand on a
// subject.
func (s *Store) indexConclusion(task, head string, prev *taskCache, rec *record.Record) {
	st, err := record.Derive(task, append(prev.copyRecords(), rec))
	if err != nil {
		return // the next read across every task indexes it
	}
	s.noteStanding(task, head, st.Standing())
}
