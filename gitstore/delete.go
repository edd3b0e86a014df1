package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"git-reason/gitstore/git"
)

// Elsewhere lists the refs under refs/reasoning/ outside the local
// tasks' namespace that may hold task: the remote-tracking refs a pull or
// a push leaves (RemoteRef), or any other namespace. A name that could be
// the task under some remote's name counts: when in doubt, the task was
// shared.
func (s *Store) Elsewhere(ctx context.Context, task string) ([]string, error) {
	refs, err := s.Repo.ListRefs("refs/reasoning/")
	if err != nil {
		return nil, fmt.Errorf("list reasoning refs: %w", err)
	}
	var out []string
	for _, r := range refs {
		if strings.HasPrefix(r.Name, TaskPrefix) {
			continue
		}
		if strings.HasSuffix(r.Name, "/"+task) {
			out = append(out, r.Name)
		}
	}
	return out, nil
}

// DeleteTask removes the task's ref, only while it still points at head
// (git update-ref -d with the old value: a record appended meanwhile
// keeps the task), and the task's record cache. The other caches under
// .git/reason/ are keyed by heads and drop a task whose ref is gone on
// their next read.
func (s *Store) DeleteTask(ctx context.Context, task, head string) error {
	if _, err := s.Repo.Git(ctx, "update-ref", "-d", TaskRef(task), head); err != nil {
		return err
	}
	return s.dropTaskCache(task)
}

// dropTaskCache removes task's record cache: in memory, its file, and
// its entry in the task caches' pack, which is written again without it
// (a deleted task's records are not kept under .git/reason/). Its file
// and its entry go under the pack's lock, taken after its ref went: a
// save of many tasks or a fold holding it (by another process, for
// moments) is waited for, as a ref's lock is, rather than failing the
// delete after its ref is gone, and one that took it first either found
// the ref gone (packFiles.gone) or wrote the entry this then removes.
// Before, the file and the entry went without the lock, and such a
// write put the task's entry back into the pack after its delete.
func (s *Store) dropTaskCache(task string) error {
	s.mem.drop(task)
	s.held.drop(task)
	path := s.taskPackPath()
	if _, err := os.Lstat(filepath.Dir(path)); errors.Is(err, fs.ErrNotExist) {
		return nil // no cache under .git/reason/
	}
	lock, err := git.TakeLock(path, lockTimeout)
	if err != nil {
		return fmt.Errorf("remove the cache of task %s: %w", task, err)
	}
	if err := os.Remove(s.taskCachePath(task)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		lock.Release()
		return fmt.Errorf("remove the cache of task %s: %w", task, err)
	}
	if _, ok := readNamedPack(path, taskPackMagic).lookup(task); !ok {
		lock.Release()
		return nil
	}
	err = replaceNamedPack(lock, path, taskPackMagic, map[string][]byte{fileName(task): nil})
	s.taskPack.forget()
	if err != nil {
		return fmt.Errorf("remove the cache of task %s: %w", task, err)
	}
	return nil
}

// taskGone is whether task's ref is gone (its delete ran), as a save of
// many tasks or a fold asks it under the pack's lock (packFiles.gone):
// its loose file's existence, else a lookup in packed-refs (mapped, read
// again only once it changed). An error reading them is not gone: the
// entry is written, which costs room, never an answer (a read checks the
// head the entry holds against the ref).
func (s *Store) taskGone(task string) bool {
	name := TaskRef(task)
	if _, err := os.Lstat(s.Repo.refPath(name)); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	h, err := s.Repo.PackedRef(name)
	return err == nil && h == ""
}
