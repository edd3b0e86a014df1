package ops

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// entry is one file to check: a path from the repository root and, when its
// contents come from the object store, the blob holding them.
type entry struct {
	path string
	oid  string
}

// git runs git in dir and returns its standard output.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("git %s: %s: %w", args[0], firstLine(msg), err)
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func withPaths(args []string, paths []string) []string {
	return append(append(args, "--"), paths...)
}

// streamGit runs git in dir and calls fn with each NUL-terminated record of
// its output as it arrives, so that work can start before git is done.
func streamGit(ctx context.Context, dir string, args []string, fn func(rec string) error) error {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
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
	waitErr := cmd.Wait()
	switch {
	case stop != nil:
		return stop
	case waitErr != nil && stderr.Len() > 0:
		return fmt.Errorf("git %s: %s: %w", args[0], firstLine(strings.TrimSpace(stderr.String())), waitErr)
	case waitErr != nil:
		return fmt.Errorf("git %s: %w", args[0], waitErr)
	}
	return nil
}

// listWorkTree streams to emit the files git tracks plus untracked files
// that are not ignored.
func listWorkTree(ctx context.Context, dir string, paths []string, emit func(entry) error) error {
	prev := ""
	err := streamGit(ctx, dir, withPaths([]string{
		"ls-files", "-z", "--full-name", "--cached", "--others", "--exclude-standard",
	}, paths), func(p string) error {
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
	err := streamGit(ctx, dir, withPaths([]string{"ls-files", "-z", "-s", "--full-name"}, paths), func(rec string) error {
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

// readBlobs streams the blobs of es, in order, through one
// `git cat-file --batch` process. It calls emit with the contents of each
// blob of at most max bytes (buf comes from get and belongs to emit), or
// with nil and its size when it is larger.
func readBlobs(ctx context.Context, dir string, es []entry, max int64,
	get func(int) []byte, emit func(e entry, data []byte, size int64) error) error {
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch", "--buffer")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("read blobs: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("read blobs: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("read blobs: start git cat-file: %w", err)
	}
	go func() {
		w := bufio.NewWriter(stdin)
		for _, e := range es {
			if _, err := w.WriteString(e.oid + "\n"); err != nil {
				break
			}
		}
		w.Flush()
		stdin.Close()
	}()
	readErr := readBatch(bufio.NewReaderSize(stdout, 1<<16), es, max, get, emit)
	if readErr != nil {
		// Stop git rather than wait for it to write what nobody reads.
		cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	switch {
	case readErr != nil:
		return fmt.Errorf("read blobs: %w", readErr)
	case waitErr != nil:
		return fmt.Errorf("read blobs: git cat-file: %s: %w", firstLine(strings.TrimSpace(stderr.String())), waitErr)
	}
	return nil
}

func readBatch(r *bufio.Reader, es []entry, max int64,
	get func(int) []byte, emit func(e entry, data []byte, size int64) error) error {
	for _, e := range es {
		header, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("blob %s of %s: %w", e.oid, e.path, err)
		}
		f := strings.Fields(header)
		if len(f) != 3 || f[1] != "blob" {
			return fmt.Errorf("blob %s of %s: git cat-file answered %q", e.oid, e.path, strings.TrimSpace(header))
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return fmt.Errorf("blob %s of %s: bad size %q", e.oid, e.path, f[2])
		}
		var data []byte
		if size > max {
			if _, err := r.Discard(int(size)); err != nil {
				return fmt.Errorf("blob %s of %s: %w", e.oid, e.path, err)
			}
		} else {
			data = get(int(size))
			if _, err := io.ReadFull(r, data); err != nil {
				return fmt.Errorf("blob %s of %s: %w", e.oid, e.path, err)
			}
		}
		if b, err := r.ReadByte(); err != nil || b != '\n' {
			return errors.Join(fmt.Errorf("blob %s of %s: missing separator", e.oid, e.path), err)
		}
		if err := emit(e, data, size); err != nil {
			return err
		}
	}
	return nil
}
