package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
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
// (a deleted task's records are not kept under .git/reason/).
func (s *Store) dropTaskCache(task string) error {
	s.mem.drop(task)
	s.held.drop(task)
	if err := os.Remove(s.taskCachePath(task)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the cache of task %s: %w", task, err)
	}
	if _, ok := s.taskPack.get(s.taskPackPath(), taskPackMagic).lookup(task); ok {
		// A save of many tasks or a fold by another process holds the
		// pack for moments: waited for, as a ref's lock is, rather than
		// failing the delete after its ref is gone.
		if err := s.taskPack.save(s.taskPackPath(), taskPackMagic, map[string][]byte{task: nil}, s.taskCachePath, lockTimeout); err != nil {
			return fmt.Errorf("remove the cache of task %s: %w", task, err)
		}
	}
	return nil
}
