package ops

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"git-reason/gitstore"
	"git-reason/policy/neutrality"
)

// scanRequest says which files to hand to the neutrality checker: the work
// tree (every file git tracks plus untracked files that are not ignored),
// the index (blobs staged for commit, never the work tree) or a range (the
// files changed between A and B, as they are at B).
type scanRequest struct {
	// Root is the top directory of the work tree; git is asked for it
	// when it is empty.
	Root string
	// Dir is the directory Paths are relative to; Root when empty.
	Dir string
	// Paths are git pathspecs; none means the whole tree.
	Paths  []string
	Staged bool
	// Range is "A..B" or "A...B"; it cannot be combined with Staged.
	Range string
	// Workers bounds how many files are read and scanned at once; zero
	// means GOMAXPROCS, and at least 2.
	Workers int
	// MaxFileSize is the largest file read; zero means
	// neutrality.DefaultMaxFileSize.
	MaxFileSize int64
}

// scanNeutrality lists the files the request names, reads those the
// checker covers and scans them with a bounded pool of workers. Listing
// uses one git process and, for the index and a range, one
// `git cat-file --batch` process reads every blob.
func scanNeutrality(ctx context.Context, c *neutrality.Checker, req scanRequest) (*neutrality.Result, error) {
	if req.Staged && req.Range != "" {
		return nil, errStagedAndRange
	}
	if req.Range != "" && (!strings.Contains(req.Range, "..") || strings.HasPrefix(req.Range, "-")) {
		return nil, rangeUsage(req.Range, "write A..B")
	}
	if req.Root == "" {
		repo, err := gitstore.Discover(req.Dir)
		if err != nil {
			return nil, fmt.Errorf("find work tree: %w", err)
		}
		req.Root = repo.WorkTree
	}
	s := &scan{checker: c, max: req.MaxFileSize}
	if s.max <= 0 {
		s.max = neutrality.DefaultMaxFileSize
	}
	workers := req.Workers
	if workers <= 0 {
		workers = max(2, runtime.GOMAXPROCS(0))
	}
	var err error
	if req.Staged || req.Range != "" {
		var es []entry
		if req.Staged {
			es, err = listIndex(ctx, req.gitDir(), req.Paths)
		} else {
			es, err = listRange(ctx, req.gitDir(), req.Range, req.Paths)
		}
		if err != nil {
			return nil, err
		}
		kept := es[:0]
		for _, e := range es {
			if c.Covers(e.path) {
				kept = append(kept, e)
			}
		}
		err = s.blobs(ctx, req.Root, kept, workers)
	} else {
		err = s.files(ctx, req.Root, workers, func(emit func(entry) error) error {
			return listWorkTree(ctx, req.gitDir(), req.Paths, func(e entry) error {
				if !c.Covers(e.path) {
					return nil
				}
				return emit(e)
			})
		})
	}
	if err != nil {
		return nil, err
	}
	return s.res.Finish(), nil
}

// gitDir is where git runs to list files: Dir when there are paths to
// resolve against it, else the root, since no path means the whole tree.
func (req *scanRequest) gitDir() string {
	if len(req.Paths) > 0 && req.Dir != "" {
		return req.Dir
	}
	return req.Root
}

// scan collects what the workers find; each worker scans into a result of
// its own and merges it once at its end.
type scan struct {
	checker *neutrality.Checker
	max     int64

	mu  sync.Mutex
	res neutrality.Result
}

func (s *scan) merge(r *neutrality.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.Merge(r)
}

// files reads and scans work tree files with a pool of workers, while list
// is still emitting them. Paths go to the workers in batches: a channel
// operation per file costs more than reading a small one.
func (s *scan) files(ctx context.Context, root string, workers int, list func(emit func(entry) error) error) error {
	const batch = 32
	jobs := make(chan []entry, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var r neutrality.Result
			var buf []byte
			for es := range jobs {
				for _, e := range es {
					var data []byte
					var why string
					data, buf, why = readFile(filepath.Join(root, filepath.FromSlash(e.path)), buf, s.max)
					switch {
					case why != "":
						r.Skip(e.path, why)
					case data != nil:
						s.checker.Scan(&r, e.path, data)
					}
				}
			}
			s.merge(&r)
		})
	}
	pending := make([]entry, 0, batch)
	send := func() error {
		select {
		case jobs <- pending:
			pending = make([]entry, 0, batch)
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err := list(func(e entry) error {
		if pending = append(pending, e); len(pending) == batch {
			return send()
		}
		return nil
	})
	if err == nil && len(pending) > 0 {
		err = send()
	}
	close(jobs)
	wg.Wait()
	return err
}

// blobs reads blobs with one git process and scans them with a pool of
// workers.
func (s *scan) blobs(ctx context.Context, root string, es []entry, workers int) error {
	if len(es) == 0 {
		return nil
	}
	type job struct {
		path string
		data []byte
	}
	jobs := make(chan job, workers)
	pool := sync.Pool{}
	get := func(n int) []byte {
		if b, ok := pool.Get().(*[]byte); ok && cap(*b) >= n {
			return (*b)[:n]
		}
		return make([]byte, n, max(n, 64<<10))
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var r neutrality.Result
			for j := range jobs {
				s.checker.Scan(&r, j.path, j.data)
				pool.Put(&j.data)
			}
			s.merge(&r)
		})
	}
	var big neutrality.Result
	err := readBlobs(ctx, root, es, s.max, get, func(e entry, data []byte, size int64) error {
		if data == nil {
			big.SkipTooLarge(e.path, s.max)
			return nil
		}
		select {
		case jobs <- job{e.path, data}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(jobs)
	wg.Wait()
	s.merge(&big)
	return err
}
