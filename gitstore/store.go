package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// TaskPrefix is where task refs live.
const TaskPrefix = "refs/reasoning/tasks/"

// RecordsDir is the tree directory holding a task's records.
const RecordsDir = "records"

// Store is a record.Store on a git repository.
type Store struct {
	Repo *Repo
	// OnSkip, when set, is told once per task when a read across every
	// task (the index, a search for a record) skips a task whose history
	// does not read; err matches record.ErrUnreadable.
	OnSkip func(task string, err error)
	// OnProgress, when set, is told how far a read across every task
	// has come (what it does, tasks done, tasks in all), after each task:
	// the first read of a clone's tasks replays every history, which at a
	// year of a team's reasoning takes seconds.
	OnProgress func(what string, done, total int)
	// Limits, when set, gives the configured read limits; it is asked
	// only for a read of more than MinReadLimit bytes (nil:
	// DefaultReadLimits).
	Limits func() ReadLimits
	// Sign, when set, signs every commit the store writes (records and
	// merges): it is given the unsigned commit's content and returns the
	// detached signature that goes into the commit's gpgsig header, as
	// `git commit -S` writes it. An error refuses the write before any
	// ref moves.
	Sign func(payload []byte) ([]byte, error)
	// Promisors, when set, gives the repository's promisor remotes from
	// the configuration the command listed (PromisorRemotes over its
	// variables); asked only when an object is missing from a partial
	// clone. Unset, or an error: a git config process asks git.
	Promisors func() ([]string, error)

	objs *filesystem.Storage
	// incoming reads the objects of GIT_OBJECT_DIRECTORY when it is not
	// the repository's objects directory: where git's pre-receive
	// quarantine holds a push's objects (nil otherwise; objs reads the
	// repository's own, as git reads them through
	// GIT_ALTERNATE_OBJECT_DIRECTORIES).
	incoming *filesystem.ObjectStorage
	// read holds the objects objs read or this store wrote, by hash
	// (go-git's cache under objs): an object is its hash's content
	// wherever it lies, so one read again is answered from here without
	// a look at the object directories (cachedObject).
	read cache.Object
	// bigPacks is decided once: whether the packs' indexes are large
	// enough for packed objects to be read by git first (packreads.go);
	// goGitPacks, once set, sends every read to go-git.
	bigPacks sync.Once
	// packIndexes is the size of the packs' indexes, as bigPacks found it.
	packIndexes int64
	goGitPacks  atomic.Bool
	// packsViaGit reads packed objects through git first whatever the
	// packs' size (tests: ReadPacksThroughGit).
	packsViaGit bool
	// longReads reads every history as a long one (tests of both readers).
	longReads bool
	// partial is decided once: whether objects/pack holds a promisor
	// pack, as every partial clone's does (promisor.go).
	partial      sync.Once
	partialClone bool
	// remembered, when set, is what sync remembers verified: replays go
	// on from a remembered head and remember what replays clean.
	remembered *Remembered
	truth      truth // read surfaces' replays (truth.go)
	// graph, when set, holds commits' parents already read (Share).
	graph *commitParents
	// budget, when set, is what the pull this store verifies for may
	// still read (Share).
	budget *pullBudget
	// blind, when set, holds the replays of the run blind to their task
	// (Share), and histories the histories the run read.
	blind     *blindReplays
	histories *heldHistories
	shared    *sharedHeads // the heads blind and histories hold
	skipped   sync.Map     // task -> struct{}: OnSkip was told
	mem       memCache     // the tasks this process has in hand, by head
	// reusedHeld is what reuse checks found of reused tasks, by head.
	reusedHeld heldReuses
	behind     writeBehind
	// held is the task caches a read across many tasks holds back, and
	// taskPack the pack they go into (taskcache.go).
	held     heldCaches
	taskPack packRead
}

// Skip reports a task whose history does not read to OnSkip, once per
// task, and is how every read across tasks leaves such a task out. With
// no OnSkip it reports nothing and remembers nothing. A read a signal cut
// short (Ctrl-C reached the git reading it) is not reported: the history
// is whole, and the command is ending of the signal.
func (s *Store) Skip(task string, err error) {
	if s.OnSkip == nil || git.KilledBy(err) != 0 {
		return
	}
	if _, told := s.skipped.LoadOrStore(task, struct{}{}); told {
		return
	}
	s.OnSkip(task, record.Unreadable(task, err))
}

// SkipAgain forgets which tasks Skip reported, so that each is reported
// once more: a resident session's next request says them again
// (ops.Session.Hold).
func (s *Store) SkipAgain() { s.skipped.Clear() }

// Progress tells OnProgress, when set, that done of total tasks are
// through the step what. Workers may call it at once: OnProgress must be
// safe for that, and may be told a count lower than one it was told.
func (s *Store) Progress(what string, done, total int) {
	if s != nil && s.OnProgress != nil {
		s.OnProgress(what, done, total)
	}
}

// Open locates the repository for dir as git does and opens its store.
func Open(dir string) (*Store, error) {
	r, err := Discover(dir)
	if err != nil {
		return nil, err
	}
	return NewStore(r), nil
}

// NewStore returns the store of a located repository.
func NewStore(r *Repo) *Store {
	objs := cache.NewObjectLRUDefault()
	return &Store{Repo: r, objs: r.storage(objs), read: objs, incoming: r.incomingObjects()}
}

// TaskRef is the ref of a task.
func TaskRef(task string) string { return TaskPrefix + task }

// CheckTask refuses a task name that is no valid task or makes no valid
// ref, as bad input.
func (s *Store) CheckTask(task string) error {
	if err := record.CheckTask(task); err != nil {
		return err
	}
	if err := CheckRefName(TaskRef(task)); err != nil {
		return record.Inputf("task %q makes an invalid ref: %v", task, err)
	}
	return nil
}

// TaskConflict turns a *RefConflictError met by task's ref into bad input
// that says, in one line, which task is in the way and what to do; any
// other error is returned as it is.
func TaskConflict(task string, err error) error {
	var c *RefConflictError
	if !errors.As(err, &c) {
		return err
	}
	if other, ok := strings.CutPrefix(c.Existing, TaskPrefix); ok {
		return record.Inputf("task %s: %v (task %s exists, and one task's name cannot be a directory of another's: choose another name)",
			task, c, other)
	}
	return record.Inputf("task %s: %v", task, c)
}

// Load implements record.Store: it reads every record in the head commit's
// records/ tree, each strictly (record.ReadStored). A history that does not
// read is an error matching record.ErrUnreadable that names the task.
func (s *Store) Load(ctx context.Context, task string) (string, []*record.Record, error) {
	if err := s.CheckTask(task); err != nil {
		return "", nil, err
	}
	head, err := s.Repo.ReadRef(TaskRef(task))
	if err != nil || head == "" {
		return "", nil, err
	}
	_, recs, err := s.loadTask(task, head)
	if err != nil {
		return "", nil, record.Unreadable(task, fmt.Errorf("at %s: %w", record.ShortCommit(head), err))
	}
	return head, recs, nil
}

// Head returns the commit task's ref points at, "" when there is none:
// what a read keyed by head (a memo) asks before anything else.
func (s *Store) Head(task string) (string, error) {
	if err := s.CheckTask(task); err != nil {
		return "", err
	}
	return s.Repo.ReadRef(TaskRef(task))
}

// LoadAt is Load of the task at head, a commit its ref pointed at: for a
// reader that has the head already (Newest gives it) and need not read
// the ref again.
func (s *Store) LoadAt(task, head string) ([]*record.Record, error) {
	if err := s.CheckTask(task); err != nil {
		return nil, err
	}
	_, recs, err := s.loadTask(task, head)
	if err != nil {
		return nil, record.Unreadable(task, fmt.Errorf("at %s: %w", record.ShortCommit(head), err))
	}
	return recs, nil
}

// RecordsDecode implements record.DecodingStore: every record Load
// returns passed record.ReadStored, which decodes it, when it was read from
// git, or was written by the writer through this store.
func (s *Store) RecordsDecode() bool { return true }

// The largest commit and records/ tree read. A commit holds a record's
// one-line summary and trailers; a records/ tree holds about 80 bytes per
// record, so the tree limit allows some 200,000 records in one task.
const (
	maxCommitBytes = record.MaxRecordBytes
	maxTreeBytes   = 16 << 20
)

// recordsTree returns the records/ tree of a commit; a commit without one
// has an empty tree. Each object's size is checked before it is read.
func (s *Store) recordsTree(commit plumbing.Hash) (*tree, error) {
	if err := s.checkSize(commit, maxCommitBytes, "commit"); err != nil {
		return nil, err
	}
	c, err := s.getCommit(commit)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", commit, err)
	}
	return s.recordsTreeOf(c)
}

// recordsTreeOf returns the records/ tree of a commit already read,
// through the one tree reader (rootRecords, parseTree).
func (s *Store) recordsTreeOf(c *object.Commit) (*tree, error) {
	if err := s.checkSize(c.TreeHash, maxTreeBytes, "tree"); err != nil {
		return nil, err
	}
	data, err := s.objectBytes(plumbing.TreeObject, c.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("read tree of %s: %w", c.Hash, err)
	}
	sub, err := rootRecords(c.TreeHash.String(), data)
	if err != nil || sub == "" {
		return &tree{}, err
	}
	h := plumbing.NewHash(sub)
	if err := s.checkSize(h, maxTreeBytes, "records tree"); err != nil {
		return nil, err
	}
	if data, err = s.objectBytes(plumbing.TreeObject, h); err != nil {
		return nil, fmt.Errorf("read records tree %s: %w", sub, err)
	}
	rt, err := parseTree(sub, data, nil)
	if err != nil {
		return nil, err
	}
	t := &tree{Entries: make([]TreeEntry, len(rt.ents))}
	for i := range rt.ents {
		e := &t.Entries[i]
		e.Name, e.Mode = string(rt.name(i)), filemode.Regular
		copy(e.Hash[:], rt.hash(i))
	}
	return t, nil
}

// checkSize refuses an object larger than limit before reading it: the
// size comes from the object's header, and nothing is inflated.
func (s *Store) checkSize(h plumbing.Hash, limit int64, what string) error {
	size, err := s.objectSize(h)
	if err != nil {
		return fmt.Errorf("read %s %s: %w", what, h, err)
	}
	if size > limit {
		return fmt.Errorf("%s %s is %d bytes; the limit is %d", what, h, size, limit)
	}
	return nil
}

// cachedObject is the object of hash h when this store has read or
// written it (Store.read).
func (s *Store) cachedObject(h plumbing.Hash) (plumbing.EncodedObject, bool) {
	if s.read == nil {
		return nil, false
	}
	return s.read.Get(h)
}

// objectSize is an object's size, from its header.
func (s *Store) objectSize(h plumbing.Hash) (int64, error) {
	if obj, ok := s.cachedObject(h); ok {
		return obj.Size(), nil
	}
	if p := s.viaGit(h); p != nil {
		defer p.mu.Unlock()
		info, err := p.info(h)
		return info.Size, err
	}
	// The object itself, not go-git's EncodedObjectSize: that tries a
	// loose file before the packs every time (a failed open for each
	// object of a clone) and decodes a packed object's header again for
	// the read that follows. EncodedObject looks in the packs first once
	// they are indexed, and in a pack written since (a fetch keeps every
	// pack it checked); it leaves an object over the limit unread
	// (Storage), and keeps a small one in s.read for that read.
	obj, err := s.goGitObject(plumbing.AnyObject, h)
	if err != nil {
		return 0, err
	}
	return obj.Size(), nil
}

// recordBlob reads the blob of one records/ tree entry, which must be a
// file of at most record.MaxRecordBytes.
func (s *Store) recordBlob(e TreeEntry) ([]byte, error) {
	if e.Mode != filemode.Regular && e.Mode != filemode.Executable {
		return nil, fmt.Errorf("%s/%s is not a file (mode %s)", RecordsDir, record.Printable(e.Name), e.Mode)
	}
	data, err := s.readBlob(e.Hash)
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", RecordsDir, record.Printable(e.Name), err)
	}
	return data, nil
}

// readBlob reads a blob of at most record.MaxRecordBytes, checking its size
// before reading it.
func (s *Store) readBlob(h plumbing.Hash) ([]byte, error) {
	if err := s.checkSize(h, record.MaxRecordBytes, "blob"); err != nil {
		return nil, err
	}
	countBlob()
	obj, err := s.encodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, err
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, record.MaxRecordBytes+1))
	if err == nil && len(data) > record.MaxRecordBytes {
		err = fmt.Errorf("blob %s is larger than %d bytes", h, record.MaxRecordBytes)
	}
	return data, err
}

// Append implements record.Store: it writes the record's blob, the trees and
// a commit whose parent is head, then moves the ref from head to it by
// compare-and-swap. The four objects are encoded first and written while
// the ref's lock takes the commit's id and syncs it (Repo.LockRef), so
// that the sync, the longest wait of a write, and the object files
// overlap; the lock is renamed over the ref only once every object is
// written. A wait for the lock another process holds ends with ctx: the
// write is stopped, the ref unchanged.
func (s *Store) Append(ctx context.Context, task, head string, rec *record.Record) (string, error) {
	if err := s.CheckTask(task); err != nil {
		return "", err
	}
	var parents []plumbing.Hash
	prev := &taskCache{tree: []byte{}} // a first record's tree holds it alone
	if head == "" {
		// Refused before any object is written: a/b cannot start while a
		// exists, nor a while a/b does.
		if err := s.Repo.RefConflict(TaskRef(task)); err != nil {
			return "", TaskConflict(task, err)
		}
	} else {
		var err error
		if prev, err = s.taskAt(task, head); err != nil {
			return "", err
		}
		parents = []plumbing.Hash{plumbing.NewHash(head)}
	}
	data, err := rec.Blob()
	if err != nil {
		return "", err
	}
	if len(data) > record.MaxRecordBytes {
		return "", fmt.Errorf("%w: the %s record is %d bytes; a record is at most %d", record.ErrInput, rec.Kind, len(data), record.MaxRecordBytes)
	}
	blob := newObject(plumbing.BlobObject, data)
	records, err := recordsTreeWith(prev, TreeEntry{Name: rec.FileName(), Mode: filemode.Regular, Hash: blob.hash})
	if err != nil {
		return "", err
	}
	objs, err := s.commitObjects(rec, records, parents)
	if err != nil {
		return "", err
	}
	objs = append([]objectToWrite{blob}, objs...)
	commit := objs[len(objs)-1].hash
	written := make(chan error, 1)
	go func() { written <- s.writeObjects(objs) }()
	held, err := s.Repo.LockRef(ctx, TaskRef(task), head, commit.String(), "git reason: "+string(rec.Kind), lockTimeout)
	if werr := <-written; werr != nil {
		if err == nil {
			held.Abandon()
		}
		return "", werr
	}
	if err == nil {
		err = held.Place()
	}
	if errors.Is(err, ErrStale) {
		return "", fmt.Errorf("%w: %v", record.ErrConflict, err)
	}
	if err != nil {
		return "", TaskConflict(task, err)
	}
	// What the writer did, for reuse's authorship (written.go) and the
	// replay's schemas (checked.go): the repository's key read once.
	if key, err := repoKey(s.reasonDir(), true); err == nil {
		s.noteAppended(key, task, commit.String(), blob.hash.String())
	}
	s.cacheAppended(task, commit.String(), prev, rec.FileName(), blob.hash.String(), data, records)
	if rec.Kind == record.KindConclusion {
		s.indexConclusion(task, commit.String(), prev, rec)
	}
	return commit.String(), nil
}

// recordsTreeWith is the content of the records/ tree of prev's head
// with e added. A record appended to a task sorts after every record
// before it (its name begins with its clock, the task's highest): when
// prev holds the content of its head's tree (kept by the append that
// wrote it), that content followed by e's entry is the new tree, as git
// orders a tree's entries, so that an append encodes one entry, not the
// task's. Otherwise every entry is encoded again.
func recordsTreeWith(prev *taskCache, e TreeEntry) ([]byte, error) {
	n := len(prev.Entries)
	if prev.tree != nil && (n == 0 || prev.Entries[n-1].Name < e.Name) {
		one, err := encodeTree([]TreeEntry{e})
		if err != nil {
			return nil, err
		}
		return append(append(make([]byte, 0, len(prev.tree)+len(one)), prev.tree...), one...), nil
	}
	entries := append(prev.treeEntries(), e)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return encodeTree(entries)
}

// commitObjects encodes, without writing them, the records tree (its
// content), the root tree and the commit of a record's append, in that
// order (the commit last).
func (s *Store) commitObjects(rec *record.Record, records []byte, parents []plumbing.Hash) ([]objectToWrite, error) {
	recordsTree := newObject(plumbing.TreeObject, records)
	data, err := encodeTree(recordsEntry(recordsTree.hash))
	if err != nil {
		return nil, err
	}
	root := newObject(plumbing.TreeObject, data)
	entry, err := record.Decode(rec)
	if err != nil {
		return nil, err
	}
	when, err := time.Parse(time.RFC3339Nano, rec.Created)
	if err != nil {
		return nil, fmt.Errorf("record %s has a bad created time: %w", rec.ID, err)
	}
	sig := ParseActor(rec.Actor, when)
	c := &object.Commit{Author: sig, Committer: sig, Message: record.Message(entry),
		TreeHash: root.hash, ParentHashes: parents}
	if data, err = s.commitData(c); err != nil {
		return nil, err
	}
	return []objectToWrite{recordsTree, root, newObject(plumbing.CommitObject, data)}, nil
}

func (s *Store) writeTree(entries []TreeEntry) (plumbing.Hash, error) {
	data, err := encodeTree(entries)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return s.putObject(plumbing.TreeObject, data)
}

// writeCommitObject writes a commit, signed when the store has a signer
// (commitData).
func (s *Store) writeCommitObject(c *object.Commit) (plumbing.Hash, error) {
	data, err := s.commitData(c)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return s.putObject(plumbing.CommitObject, data)
}

// commitData encodes a commit, signed when the store has a signer: the
// signer gets the unsigned commit's content and its signature goes into
// the gpgsig header, as git commit -S writes it.
func (s *Store) commitData(c *object.Commit) ([]byte, error) {
	data, err := encodeCommit(c)
	if err != nil {
		return nil, err
	}
	if s.Sign == nil {
		return data, nil
	}
	sig, err := s.Sign(data)
	if err != nil {
		return nil, err
	}
	signed := *c
	signed.PGPSignature = string(sig)
	return encodeCommit(&signed)
}

// ParseActor splits "Name <email>" into a signature at when.
func ParseActor(actor string, when time.Time) Signature {
	name, email := actor, ""
	if i := strings.LastIndex(actor, "<"); i >= 0 && strings.HasSuffix(actor, ">") {
		name, email = strings.TrimSpace(actor[:i]), actor[i+1:len(actor)-1]
	}
	return Signature{Name: name, Email: email, When: when}
}

// Tasks implements record.Store. A task whose ref file is broken is
// left out, as git lists refs, and reported to Skip: one bad file no
// longer stops every read of every task.
func (s *Store) Tasks(ctx context.Context) ([]record.TaskHead, error) {
	out, broken, err := s.TasksBroken(ctx)
	for _, b := range broken {
		if b.Err != nil {
			s.Skip(b.Task, b.Err)
		}
	}
	return out, err
}

// BrokenTask is a task whose ref's loose file is broken (BrokenRefError),
// or, with Err nil, a ref under TaskPrefix whose name is no task's
// (Misnamed): git (update-ref, a fetch with a refspec of its own) makes
// one as "refs/reasoning/tasks/-h", which no command reads as a task.
type BrokenTask struct {
	Task string
	Err  *BrokenRefError
	// Misnamed is why Task is no task's name, when it is not.
	Misnamed error
}

// Finding is verify's finding of the broken ref of task, or of the ref
// of no task.
func (b BrokenTask) Finding() record.Finding {
	if b.Err == nil {
		ref := TaskPrefix + b.Task
		task := record.Printable(b.Task)
		if len(task) > record.MaxTaskLen {
			task = strings.ToValidUTF8(task[:record.MaxTaskLen], "")
		}
		return record.Finding{Task: task, Commit: record.NoCommit, Code: record.FindMisnamedRef,
			Message: record.Printable(fmt.Sprintf("ref %s names no task (%v), so git reason leaves it out: remove it with 'git update-ref -d %s'", ref, b.Misnamed, record.ShellQuote(ref)))}
	}
	return record.Finding{Task: b.Task, Commit: record.NoCommit, Code: record.FindBrokenRef,
		Message: record.Printable(fmt.Sprintf("its ref's file %s holds %q, which names no commit, so git and git reason leave the task out: remove the file and run 'git reason pull' to fetch the task again", b.Err.Path, b.Err.Content))}
}

// TasksBroken is Tasks with the tasks it left out for a broken ref, and
// the refs under TaskPrefix it left out for a name that is no task's,
// reported to no one: for a reader that reports them itself (verify,
// doctor).
func (s *Store) TasksBroken(ctx context.Context) ([]record.TaskHead, []BrokenTask, error) {
	refs, broken, err := s.Repo.ListRefsBroken(TaskPrefix)
	if err != nil {
		return nil, nil, err
	}
	out := make([]record.TaskHead, 0, len(refs))
	var bad []BrokenTask
	for _, r := range refs {
		task := strings.TrimPrefix(r.Name, TaskPrefix)
		if err := record.CheckTask(task); err != nil {
			bad = append(bad, BrokenTask{Task: task, Misnamed: err})
			continue
		}
		out = append(out, record.TaskHead{Task: task, Head: r.Hash})
	}
	for _, b := range broken {
		task := strings.TrimPrefix(b.Name, TaskPrefix)
		if err := record.CheckTask(task); err != nil {
			bad = append(bad, BrokenTask{Task: task, Misnamed: err})
			continue
		}
		bad = append(bad, BrokenTask{Task: task, Err: b})
	}
	return out, bad, nil
}

// HasObject reports whether the repository has the object.
func (s *Store) HasObject(hash string) bool {
	// EncodedObject, not HasEncodedObject: the latter can miss an object
	// that a concurrent gc just packed.
	h := plumbing.NewHash(hash)
	if p := s.viaGit(h); p != nil {
		defer p.mu.Unlock()
		_, err := p.info(h)
		return err == nil
	}
	_, err := s.objs.EncodedObject(plumbing.AnyObject, h)
	return err == nil
}

// RecordNames returns the entry names of head's records/ tree
// (<clock>-<kind>-<id>.json) without reading any record: what a shell's
// completion lists.
func (s *Store) RecordNames(head string) ([]string, error) {
	tree, err := s.recordsTree(plumbing.NewHash(head))
	if err != nil {
		return nil, err
	}
	names := make([]string, len(tree.Entries))
	for i, e := range tree.Entries {
		names[i] = e.Name
	}
	return names, nil
}
