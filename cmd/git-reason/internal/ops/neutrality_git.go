package ops

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"git-reason/gitstore/git"
	"git-reason/record"
)

// entry is one file to check: a path from the repository root and, when its
// contents come from the object store, the blob holding them.
type entry struct {
	path string
	oid  string
}

// unmatched adds --error-unmatch to an ls-files given paths: a path the
// caller named that matches no file is an error (pathError), not a check
// that passes having read nothing.
func unmatched(args []string, paths []string) []string {
	if len(paths) == 0 {
		return args
	}
	return append(args, "--error-unmatch")
}

// pathError turns git's refusal of a named path (one that matches no file
// it lists, or lies outside the repository) into a usage error saying
// which; nil when err is no such refusal.
func pathError(err error, staged bool) error {
	var ge *git.Error
	if !errors.As(err, &ge) || len(ge.Args) == 0 || ge.Args[0] != "ls-files" {
		return nil
	}
	line := git.FirstLine(ge.Stderr, "")
	if m := unmatchedPath().FindStringSubmatch(line); m != nil {
		if staged {
			return Usage("%q matches no staged file: name files in the index (git add them first)", m[1])
		}
		return Usage("%q matches no file here: name files git tracks or would add (ignored files are not checked)", m[1])
	}
	if strings.Contains(line, "is outside repository") {
		return Usage("%s: name files inside this repository's work tree", record.Printable(line))
	}
	return nil
}

// unmatchedPath is git's line for a pathspec that matched nothing, made
// on first use: every command initialises this package.
var unmatchedPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^pathspec '(.*)' did not match any file\(s\) known to git`)
})

func withPaths(args []string, paths []string) []string {
	return append(append(args, "--"), paths...)
}

// streamGit runs git in dir and calls fn with each NUL-terminated record of
// its output as it arrives, so that work can start before git is done.
func streamGit(ctx context.Context, dir string, args []string, fn func(rec string) error) error {
	c := git.Cmd{Dir: dir, Args: args}
	cmd := c.Exec(ctx)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return c.Failed(err, "")
	}
	r := bufio.NewReaderSize(stdout, 64<<10)
	var stop error
	for stop == nil {
		rec, err := r.ReadString(0)
		if err == io.EOF && rec == "" {
			break
		}
		if err != nil {
			stop = fmt.Errorf("read git %s: %w", args[0], err)
			break
		}
		stop = fn(rec[:len(rec)-1])
	}
	if stop != nil {
		cmd.Process.Kill() // nobody reads the rest
	}
	if err := cmd.Wait(); stop == nil && err != nil {
		stop = c.Failed(err, stderr.String())
	}
	return stop
}

// listWorkTree streams to emit the files git tracks plus untracked files
// that are not ignored.
func listWorkTree(ctx context.Context, dir string, paths []string, emit func(entry) error) error {
	prev := ""
	err := streamGit(ctx, dir, withPaths(unmatched([]string{
		"ls-files", "-z", "--full-name", "--cached", "--others", "--exclude-standard",
	}, paths), paths), func(p string) error {
		if p == prev { // an unmerged path is listed once per stage
			return nil
		}
		prev = p
		return emit(entry{path: p})
	})
	if err != nil {
		return fmt.Errorf("list work tree: %w", err)
	}
	return nil
}

// listIndex lists the regular files staged at stage 0 with their blobs;
// unmerged paths cannot be committed and are left out.
func listIndex(ctx context.Context, dir string, paths []string) ([]entry, error) {
	var es []entry
	err := streamGit(ctx, dir, withPaths(unmatched([]string{"ls-files", "-z", "-s", "--full-name"}, paths), paths), func(rec string) error {
		// <mode> SP <oid> SP <stage> TAB <path>
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return fmt.Errorf("unexpected line %q", rec)
		}
		if regular(f[0]) && f[2] == "0" {
			es = append(es, entry{path: p, oid: f[1]})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list index: %w", err)
	}
	return es, nil
}

// listRange lists the regular files that a diff of spec ("A..B" or
// "A...B") adds or modifies, with their blobs at B.
func listRange(ctx context.Context, dir, spec string, paths []string) ([]entry, error) {
	var es []entry
	var meta []string // the record before a path; nil when a record is due
	err := streamGit(ctx, dir, withPaths([]string{
		"diff", "--raw", "-z", "--no-abbrev", "--no-renames", "--no-relative",
		"--no-ext-diff", "--diff-filter=d", spec,
	}, paths), func(rec string) error {
		if meta == nil {
			// :<old mode> SP <new mode> SP <old oid> SP <new oid> SP <status>
			if meta = strings.Fields(strings.TrimPrefix(rec, ":")); len(meta) != 5 {
				return fmt.Errorf("unexpected line %q", rec)
			}
			return nil
		}
		if regular(meta[1]) {
			es = append(es, entry{path: rec, oid: meta[3]})
		}
		meta = nil
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list range %s: %w", spec, err)
	}
	return es, nil
}

// regular reports whether a git mode is a regular file's: symbolic links
// and submodules have no text of their own.
func regular(mode string) bool { return mode == "100644" || mode == "100755" }

// readBlobs reads the blobs of es, in order, through the one batch reader
// (git.CatFile) started in dir: sizes first, then the content of each blob
// of at most max bytes. It calls emit with that content (buf comes from
// get and belongs to emit), or with nil and its size for a larger blob.
func readBlobs(ctx context.Context, dir string, es []entry, max int64,
	get func(int) []byte, emit func(e entry, data []byte, size int64) error) error {
	cf, err := git.StartCatFile(ctx, dir)
	if err != nil {
		return fmt.Errorf("read blobs: %w", err)
	}
	defer cf.Close()
	oids := make([]string, len(es))
	for i, e := range es {
		oids[i] = e.oid
	}
	infos, err := cf.Infos(oids)
	if err != nil {
		return fmt.Errorf("read blobs: %w", err)
	}
	var small []string
	var at []int // the index in es of each of small
	for i, info := range infos {
		if info.Missing || info.Type != "blob" {
			return fmt.Errorf("read blobs: blob %s of %s: git cat-file finds no such blob", es[i].oid, es[i].path)
		}
		if info.Size <= max {
			small, at = append(small, oids[i]), append(at, i)
		}
	}
	next := 0 // the next of es to emit
	large := func(upto int) error {
		for ; next < upto; next++ {
			if err := emit(es[next], nil, infos[next].Size); err != nil {
				return err
			}
		}
		return nil
	}
	err = cf.Contents(small, func(k int, _ string, data []byte) error {
		if err := large(at[k]); err != nil {
			return err
		}
		buf := get(len(data))
		copy(buf, data)
		cf.Release(data)
		next++
		return emit(es[at[k]], buf, int64(len(buf)))
	})
	if err == nil {
		err = large(len(es))
	}
	if err != nil {
		return fmt.Errorf("read blobs: %w", err)
	}
	return nil
}
