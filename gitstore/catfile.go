package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// catFile is one `git cat-file --batch-command --buffer` process: it
// answers many object requests over one pipe, so reading a history costs
// one process rather than a lookup through go-git per object. An object's
// size is always asked for (info) before its content is (contents), so
// nothing larger than its limit is read into this process.
type catFile struct {
	cancel context.CancelFunc
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	free   [][]byte // buffers given back with release
}

// buffer returns a buffer of n bytes: a released one when one is large
// enough.
func (cf *catFile) buffer(n int) []byte {
	best := -1
	for i, b := range cf.free {
		if cap(b) >= n && (best < 0 || cap(b) < cap(cf.free[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := cf.free[best]
		cf.free = append(cf.free[:best], cf.free[best+1:]...)
		return b[:n]
	}
	// Room to grow: the next tree of a history is mostly this one and a
	// record more.
	return make([]byte, n, n+n/4+4096)
}

// release gives back a buffer that contents returned and that is no
// longer used.
func (cf *catFile) release(b []byte) {
	if len(cf.free) < 8 {
		cf.free = append(cf.free, b)
		return
	}
	// Full: the largest buffers are the ones worth keeping.
	small := 0
	for i, f := range cf.free {
		if cap(f) < cap(cf.free[small]) {
			small = i
		}
	}
	if cap(b) > cap(cf.free[small]) {
		cf.free[small] = b
	}
}

// objectInfo is what info says of an object: its type and size, or that
// it is missing.
type objectInfo struct {
	typ     string
	size    int64
	missing bool
}

// catFile starts the process; the caller must close it.
func (r *Repo) catFile(ctx context.Context) (*catFile, error) {
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, "git", "--git-dir="+r.GitDir, "--no-replace-objects", "cat-file", "--batch-command", "--buffer")
	cmd.Dir = r.GitDir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	cf := &catFile{cmd: cmd, cancel: cancel}
	cmd.Stderr = &cf.stderr
	var err error
	if cf.stdin, err = cmd.StdinPipe(); err != nil {
		cancel()
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if f, ok := stdout.(*os.File); ok {
		growPipe(f)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("run git cat-file: %w", err)
	}
	cf.out = bufio.NewReaderSize(stdout, 1<<16)
	return cf, nil
}

// close ends the process: it is killed, since a reader that stopped
// reading may have left answers unread.
func (cf *catFile) close() {
	cf.cancel()
	cf.stdin.Close()
	_ = cf.cmd.Wait()
}

// failed is err with what git said on stderr, when it said something.
func (cf *catFile) failed(err error) error {
	if msg := strings.TrimSpace(cf.stderr.String()); msg != "" {
		return fmt.Errorf("%w (git cat-file: %s)", err, lastLine(msg, ""))
	}
	return err
}

// send writes one request per hash, then flush, from its own goroutine so
// that git's answers are read while the requests are still being written.
// The returned channel gives the write's error once done.
func (cf *catFile) send(verb string, hashes []string) <-chan error {
	done := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(cf.stdin, 1<<16)
		for _, h := range hashes {
			w.WriteString(verb)
			w.WriteByte(' ')
			w.WriteString(h)
			w.WriteByte('\n')
		}
		w.WriteString("flush\n")
		done <- w.Flush()
	}()
	return done
}

// header reads one answer's first line: "<oid> <type> <size>" or
// "<oid> missing".
func (cf *catFile) header(want string) (objectInfo, error) {
	line, err := cf.out.ReadString('\n')
	if err != nil {
		return objectInfo{}, fmt.Errorf("read git cat-file: %w", err)
	}
	f := strings.Fields(line)
	switch {
	case len(f) == 2 && f[0] == want && f[1] == "missing":
		return objectInfo{missing: true}, nil
	case len(f) == 3 && f[0] == want:
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			break
		}
		return objectInfo{typ: f[1], size: size}, nil
	}
	return objectInfo{}, fmt.Errorf("git cat-file answered %q for %s", strings.TrimSpace(line), want)
}

// infos returns the type and size of each object.
func (cf *catFile) infos(hashes []string) ([]objectInfo, error) {
	done := cf.send("info", hashes)
	out := make([]objectInfo, len(hashes))
	for i, h := range hashes {
		info, err := cf.header(h)
		if err != nil {
			return nil, cf.failed(err)
		}
		out[i] = info
	}
	return out, <-done
}

// contents reads each object, which must exist (info said so), and hands
// its content to fn, in order; fn may keep it. After an error the process
// must be closed.
func (cf *catFile) contents(hashes []string, fn func(i int, typ string, data []byte) error) error {
	done := cf.send("contents", hashes)
	for i, h := range hashes {
		info, err := cf.header(h)
		if err == nil && info.missing {
			err = fmt.Errorf("object %s vanished while it was read", h)
		}
		if err != nil {
			return cf.failed(err)
		}
		data := cf.buffer(int(info.size) + 1)
		if _, err := io.ReadFull(cf.out, data); err != nil {
			return cf.failed(fmt.Errorf("read %s from git cat-file: %w", h, err))
		}
		if err := fn(i, info.typ, data[:info.size]); err != nil {
			return err
		}
	}
	return <-done
}
