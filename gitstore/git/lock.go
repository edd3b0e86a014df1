package git

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// ErrLocked is wrapped when a lock could not be taken in time.
var ErrLocked = errors.New("ref is locked")

// Wait is how long a lock is waited for by a write that must happen (a
// ref, the trust store): a writer holds it for milliseconds.
const Wait = 10 * time.Second

// Lock is a held <file>.lock, git's lockfile protocol: the lock is
// created exclusively beside the file it guards; the new content is
// written to it, synced and renamed over the file, so that a reader sees
// the old file or the new one, never a part, and a writer that waits for
// the lock reads what the one before it wrote. A lock is never taken from
// another process, however old: a process that died holding it leaves it
// for a person to remove, as git does (the error says so). A process
// ended by a signal removes the locks it holds first (RemoveHeld), as
// git's lockfile does.
type Lock struct {
	f      *os.File
	target string
}

// TakeLock takes target's lock, creating target's directory: once, or
// retrying with a short randomised backoff while another process holds
// it, for up to wait. The error wraps ErrLocked when the lock stayed held.
func TakeLock(target string, wait time.Duration) (*Lock, error) {
	return TakeLockContext(context.Background(), target, wait)
}

// TakeLockContext is TakeLock whose wait also ends when ctx does (a
// server told to stop, a client that cancelled its call): the error then
// wraps ctx's, and no lock is held. A lock free at the first try is
// taken whatever ctx says.
func TakeLockContext(ctx context.Context, target string, wait time.Duration) (*Lock, error) {
	path := target + ".lock"
	deadline := time.Now().Add(wait)
	backoff := time.Millisecond
	for {
		if err := MkdirAll(filepath.Dir(path), 0o777); err != nil {
			return nil, fmt.Errorf("create lock: %w", err)
		}
		held.gate.RLock()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			held.paths.Store(path, nil)
		}
		held.gate.RUnlock()
		if err == nil {
			return &Lock{f: f, target: target}, nil
		}
		// ErrNotExist: a concurrent git pack-refs removed the directory.
		if !errors.Is(err, fs.ErrExist) && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("create lock: %w", err)
		}
		if !time.Now().Before(deadline) {
			return nil, fmt.Errorf("%w: %s exists (if no git process is running, remove it)", ErrLocked, path)
		}
		pause := time.NewTimer(backoff/2 + rand.N(backoff))
		select {
		case <-ctx.Done():
			pause.Stop()
			return nil, fmt.Errorf("the write was stopped while it waited for %s, which another process holds: nothing was written (%w)", path, ctx.Err())
		case <-pause.C:
		}
		backoff = min(2*backoff, 100*time.Millisecond)
	}
}

// Commit writes data to the lock, sets mode (unless 0), syncs it and
// renames it over the file it guards. On error the lock is still held:
// Abandon it.
func (l *Lock) Commit(data []byte, mode os.FileMode) error { return l.commit(data, mode, true) }

// Replace is Commit without the sync, for a cache read again under its
// lock before it is rewritten (WriteFile's sync unset): a crash may lose
// the new file, which is rebuilt, never leave part of it in place.
func (l *Lock) Replace(data []byte, mode os.FileMode) error { return l.commit(data, mode, false) }

// Prepare is Commit up to the rename: data is written to the lock, mode
// set (unless 0), synced, and the file closed; the file it guards is left
// as it is, and the lock held, until Place or Abandon. A ref's writer
// writes the objects the new value names while the sync runs, and puts
// the lock in place only once they are written.
func (l *Lock) Prepare(data []byte, mode os.FileMode) error { return l.write(data, mode, true) }

func (l *Lock) commit(data []byte, mode os.FileMode, sync bool) error {
	if err := l.write(data, mode, sync); err != nil {
		return err
	}
	return l.Place()
}

// write sets the lock's mode (unless 0), writes data to it, syncs it
// when sync is set and closes it. The mode is set first, so that content
// meant for its owner alone (a key) is never readable by others.
func (l *Lock) write(data []byte, mode os.FileMode, sync bool) error {
	f := l.f
	if mode != 0 {
		if err := f.Chmod(mode); err != nil {
			return err // "chmod PATH: ..."
		}
	}
	if err := AdjustCreated(f.Name()); err != nil {
		return fmt.Errorf("chmod %s: %w", f.Name(), err)
	}
	// The file's errors name it and the operation already ("write
	// PATH: no space left on device"): wrapped, the path came twice.
	if _, err := f.Write(data); err != nil {
		return err
	}
	if sync {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	return f.Close()
}

// Place renames a lock its content was written to (Prepare) over the
// file it guards, which releases it. On error the lock is still held:
// Abandon it.
func (l *Lock) Place() error {
	// The directory is not synced after the rename, as git does not: its
	// lockfile (core.fsync=reference, not even its default) syncs the
	// lock's content and renames. What the sync buys is that a crash never
	// leaves an empty or partial file in place; a directory sync would
	// only make the rename itself durable, for a ref whose new objects
	// git's default leaves unsynced anyway, and it cost every write a
	// second journal flush.
	held.gate.RLock()
	defer held.gate.RUnlock()
	if err := os.Rename(l.f.Name(), l.target); err != nil {
		return fmt.Errorf("rename lock into place: %w", err)
	}
	held.paths.Delete(l.f.Name())
	return nil
}

// Abandon closes and removes a lock that is still held.
func (l *Lock) Abandon() error {
	l.f.Close()
	held.gate.RLock()
	defer held.gate.RUnlock()
	if err := os.Remove(l.f.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove lock: %w", err)
	}
	held.paths.Delete(l.f.Name())
	return nil
}

// held are the locks this process holds (paths: their paths), for
// RemoveHeld. gate is read-held while a lock is created, put in place or
// removed, so that RemoveHeld, which takes it for good, sees each lock
// either held or gone, never half-way.
var held struct {
	gate  sync.RWMutex
	paths sync.Map
}

// RemoveHeld removes every lock this process holds, for a process about to
// die of a signal: git removes its lockfiles on SIGTERM and SIGHUP, and a
// lock a killed process leaves stops every later write of its file until
// a person removes it. Once it has run no lock is taken, put in place or
// removed again (those calls wait for ever): the file a lock guarded keeps
// its old content, as the interrupted write never happened.
func RemoveHeld() {
	held.gate.Lock()
	removeHeld()
}

// removeHeld removes every lock held, the gate taken; it returns how many.
func removeHeld() (n int) {
	held.paths.Range(func(p, _ any) bool {
		_ = os.Remove(p.(string))
		n++
		return true
	})
	return n
}

// RemoveLeft is RemoveHeld for a process about to exit while calls it
// gave up on may still run (a server stopped with a call that did not
// end): the locks they hold are removed, as a signal's death removes
// them, and none is taken, put in place or removed again. Holding none
// (a clean stop), it changes nothing. It waits at most wait for a lock
// being created, put in place or removed (a call stuck on a file system
// that does not answer), and then leaves the locks as they are, so that
// such a call never holds up the exit. It reports whether it removed any.
func RemoveLeft(wait time.Duration) bool {
	return takeIfAny(&held.gate, wait, removeHeld)
}

// takeIfAny takes gate and runs do, which returns how many things (locks,
// processes) it acted on: none, it lets gate go again; some, it keeps it
// for good, as a process about to exit does. It waits at most wait for
// gate (held by a call stuck on a file system or a fork that does not
// answer), and then gives up, do left to run whenever gate is free. It
// reports whether do acted on any.
func takeIfAny(gate *sync.RWMutex, wait time.Duration, do func() int) bool {
	done := make(chan bool, 1)
	go func() {
		gate.Lock()
		n := do()
		if n == 0 {
			gate.Unlock()
		}
		done <- n > 0
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case r := <-done:
		return r
	case <-t.C:
		return false
	}
}

// Release removes a lock taken only to take turns (nothing is committed).
func (l *Lock) Release() error { return l.Abandon() }

// WriteFile replaces target with data through its lock, waiting for it
// up to wait (0: one try; while another process holds it, that process is
// writing the file, and a cache's write gives way). sync makes the new
// file durable before it replaces the old, for a file whose loss in a
// crash costs more than the flush (the trust store); a cache is rebuilt
// instead. The one way this program replaces a file of its own, under
// .git/reason/ or in the user's configuration.
func WriteFile(target string, data []byte, mode os.FileMode, wait time.Duration, sync bool) error {
	l, err := TakeLock(target, wait)
	if err != nil {
		return err
	}
	if err := l.commit(data, mode, sync); err != nil {
		l.Abandon()
		return err
	}
	return nil
}

// AppendFile appends data to target under its lock, waiting for it up to
// wait, so that an append never meets a replacement (WriteFile) half-way.
// With create a missing file is made (mode); without, a missing file is
// an error (fs.ErrNotExist: its writer writes it whole). size, when not
// negative, is how long the file must still be, the state data goes on
// from: a file of another length is left as it is (ErrMoved). The way
// this program appends to a file of its own under .git/reason/ that is
// also written whole, unless each part it appends says what it goes on
// from (AppendAt); the lists nothing ever replaces (written.d/ and
// checked.d/, the signature verdicts, the advisors' outcomes.jsonl) take
// each append as one O_APPEND write, without a lock.
func AppendFile(target string, data []byte, mode os.FileMode, wait time.Duration, create bool, size int64) error {
	l, err := TakeLock(target, wait)
	if err != nil {
		return err
	}
	defer l.Release()
	flags := os.O_WRONLY | os.O_APPEND
	if create {
		flags |= os.O_CREATE
	}
	return appendSized(target, data, flags, mode, size)
}

// ErrMoved is AppendFile's and AppendAt's error for a file no longer the
// length its caller read.
var ErrMoved = errors.New("file changed since it was read")

// AppendAt appends data to target, which must exist and still be size
// bytes long, in one O_APPEND write and without taking its lock: for a
// file also written whole whose every appended part names the state it
// goes on from, so that a reader stops at a part that does not go on
// from what it read before it (a task cache's segments). Racing a
// replacement, the write lands in the file replaced, which no reader
// opens again; racing another append, the later part does not follow
// and is read as the end of the file. Either costs only what the file
// would have saved. A lock would cost a file created and deleted for
// each append, the most expensive thing an append does to this file on
// a file system that makes files slowly.
func AppendAt(target string, data []byte, size int64) error {
	return appendSized(target, data, os.O_WRONLY|os.O_APPEND, 0, size)
}

// appendSized opens target with flags (mode for a file they create) and
// writes data to it in one write, unless size is not negative and the
// file is not size bytes long (ErrMoved).
func appendSized(target string, data []byte, flags int, mode os.FileMode, size int64) error {
	f, err := os.OpenFile(target, flags, mode)
	if err != nil {
		return err
	}
	if size >= 0 {
		if fi, err := f.Stat(); err != nil || fi.Size() != size {
			f.Close()
			return ErrMoved
		}
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && flags&os.O_CREATE != 0 {
		err = AdjustCreated(target)
	}
	return err
}

// MakeKey makes the random key of size bytes that target keeps (mode
// 0600) when target is missing or holds no key of that size (empty, cut
// short),
// under its lock: of processes racing, the first makes it and the others
// read it, and a crash leaves the old file or a whole key, never an empty
// or partial one. A file that cannot be read is an error, left as it is.
// made reports whether this call wrote the key.
func MakeKey(target string, size int, wait time.Duration) (key []byte, made bool, err error) {
	l, err := TakeLock(target, wait)
	if err != nil {
		return nil, false, err
	}
	switch key, err := os.ReadFile(target); {
	case err == nil && len(key) == size:
		l.Release()
		return key, false, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		l.Release()
		return nil, false, err
	}
	key = make([]byte, size)
	if _, err := crand.Read(key); err != nil {
		l.Abandon()
		return nil, false, err
	}
	if err := l.Commit(key, 0o600); err != nil {
		l.Abandon()
		return nil, false, err
	}
	return key, true, nil
}
