package neutrality

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

// listWorkTree lists the files git tracks plus untracked files that are not
// ignored.
func listWorkTree(ctx context.Context, dir string, paths []string) ([]entry, error) {
	out, err := git(ctx, dir, withPaths([]string{
		"ls-files", "-z", "--full-name", "--cached", "--others", "--exclude-standard",
	}, paths)...)
	if err != nil {
		return nil, fmt.Errorf("list work tree: %w", err)
	}
	var es []entry
	prev := ""
	for _, p := range splitZ(out) {
		if p != prev { // an unmerged path is listed once per stage
			es = append(es, entry{path: p})
			prev = p
		}
	}
	return es, nil
}

// listIndex lists the regular files staged at stage 0 with their blobs;
// unmerged paths cannot be committed and are left out.
func listIndex(ctx context.Context, dir string, paths []string) ([]entry, error) {
	out, err := git(ctx, dir, withPaths([]string{"ls-files", "-z", "-s", "--full-name"}, paths)...)
	if err != nil {
		return nil, fmt.Errorf("list index: %w", err)
	}
	var es []entry
	for _, rec := range splitZ(out) {
		// <mode> SP <oid> SP <stage> TAB <path>
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("list index: unexpected line %q", rec)
		}
		if regular(f[0]) && f[2] == "0" {
			es = append(es, entry{path: p, oid: f[1]})
		}
	}
	return es, nil
}

// listRange lists the regular files that a diff of spec ("A..B" or
// "A...B") adds or modifies, with their blobs at B.
func listRange(ctx context.Context, dir, spec string, paths []string) ([]entry, error) {
	out, err := git(ctx, dir, withPaths([]string{
		"diff", "--raw", "-z", "--no-abbrev", "--no-renames", "--no-relative",
		"--no-ext-diff", "--diff-filter=d", spec,
	}, paths)...)
	if err != nil {
		return nil, fmt.Errorf("list range %s: %w", spec, err)
	}
	recs := splitZ(out)
	var es []entry
	for i := 0; i+1 < len(recs); i += 2 {
		// :<old mode> SP <new mode> SP <old oid> SP <new oid> SP <status>, then the path
		f := strings.Fields(strings.TrimPrefix(recs[i], ":"))
		if len(f) != 5 {
			return nil, fmt.Errorf("list range %s: unexpected line %q", spec, recs[i])
		}
		if regular(f[1]) {
			es = append(es, entry{path: recs[i+1], oid: f[3]})
		}
	}
	return es, nil
}

// regular reports whether a git mode is a regular file's: symbolic links
// and submodules have no text of their own.
func regular(mode string) bool { return mode == "100644" || mode == "100755" }

func splitZ(out []byte) []string {
	s := strings.TrimSuffix(string(out), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

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
