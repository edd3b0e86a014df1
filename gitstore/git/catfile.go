package git

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
	"sync/atomic"
)

// CatFile is one `git cat-file --batch-command --buffer` process, the one
// batch reader of objects: it answers many object requests over one pipe,
// so reading a history (or every file a check reads) costs one process
// rather than a lookup per object. An object's size is asked for (Infos)
// before its content is (Contents), so that nothing larger than a
// caller's limit is read into this process.
type CatFile struct {
	cancel context.CancelFunc
	c      Cmd
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	free   [][]byte // buffers given back with release
}

// buffer returns a buffer of n bytes: a released one when one is large
// enough.
func (cf *CatFile) buffer(n int) []byte {
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

// Release gives back a buffer that Contents returned and that is no
// longer used.
func (cf *CatFile) Release(b []byte) {
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

// ObjectInfo is what Infos says of an object: its type and size, or that
// it is missing.
type ObjectInfo struct {
	Type    string
	Size    int64
	Missing bool
}

// StartCatFile starts the process in dir, with global options before the
// command (--git-dir=…); replacement objects are not followed. The caller
// must Close it.
func StartCatFile(ctx context.Context, dir string, global ...string) (*CatFile, error) {
	ctx, cancel := context.WithCancel(ctx)
	c := Cmd{Dir: dir, Global: append(global, "--no-replace-objects"), Args: []string{"cat-file", "--batch-command", "--buffer"}}
	cmd := c.Exec(ctx)
	cf := &CatFile{c: c, cmd: cmd, cancel: cancel}
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
		return nil, c.Failed(err, "")
	}
	cf.out = bufio.NewReaderSize(stdout, 1<<16)
	return cf, nil
}

// Close ends the process: it is killed, since a reader that stopped
// reading may have left answers unread.
func (cf *CatFile) Close() {
	cf.cancel()
	cf.stdin.Close()
	_ = cf.cmd.Wait()
}

// failed is err with what git said on stderr, when it said something.
// When git's answers ended early (EOF), git has exited, and a signal
// that ended it is said as Cmd.Failed says it: Ctrl-C reaches git with
// this process, and a read it cut short is the interrupt (Interrupted),
// not a history that does not read.
func (cf *CatFile) failed(err error) error {
	if endedEarly(err) {
		if werr := cf.cmd.Wait(); KilledBy(cf.c.Failed(werr, "")) != 0 {
			return fmt.Errorf("%w: %w", err, cf.c.Failed(werr, cf.stderr.String()))
		}
	}
	if msg := strings.TrimSpace(cf.stderr.String()); msg != "" {
		return fmt.Errorf("%w (git cat-file: %s)", err, LastLine(msg, ""))
	}
	return err
}

// rounds counts the requests sent to every CatFile of the process.
var rounds atomic.Int64

// Rounds is how many requests this process sent to git cat-file (each
// Infos or Contents is one, for any number of objects, answered in one
// round trip): reading objects one at a time costs two an object, a batch
// two for all of them.
func Rounds() int64 { return rounds.Load() }

// send writes one request per hash, then flush, from its own goroutine so
// that git's answers are read while the requests are still being written.
// The returned channel gives the write's error once done.
func (cf *CatFile) send(verb string, hashes []string) <-chan error {
	rounds.Add(1)
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
func (cf *CatFile) header(want string) (ObjectInfo, error) {
	line, err := cf.out.ReadString('\n')
	if err != nil {
		return ObjectInfo{}, fmt.Errorf("read git cat-file: %w", err)
	}
	f := strings.Fields(line)
	switch {
	case len(f) == 2 && f[0] == want && f[1] == "missing":
		return ObjectInfo{Missing: true}, nil
	case len(f) == 3 && f[0] == want:
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			break
		}
		return ObjectInfo{Type: f[1], Size: size}, nil
	}
	return ObjectInfo{}, fmt.Errorf("git cat-file answered %q for %s", strings.TrimSpace(line), want)
}

// Infos returns the type and size of each object.
func (cf *CatFile) Infos(hashes []string) ([]ObjectInfo, error) {
	done := cf.send("info", hashes)
	out := make([]ObjectInfo, len(hashes))
	for i, h := range hashes {
		info, err := cf.header(h)
		if err != nil {
			return nil, cf.failed(err)
		}
		out[i] = info
	}
	return out, <-done
}

// Contents reads each object, which must exist (Infos said so), and hands
// its content to fn, in order; fn may keep it. After an error the process
// must be closed.
func (cf *CatFile) Contents(hashes []string, fn func(i int, typ string, data []byte) error) error {
	done := cf.send("contents", hashes)
	for i, h := range hashes {
		info, err := cf.header(h)
		if err == nil && info.Missing {
			err = fmt.Errorf("object %s vanished while it was read", h)
		}
		if err != nil {
			return cf.failed(err)
		}
		data := cf.buffer(int(info.Size) + 1)
		if _, err := io.ReadFull(cf.out, data); err != nil {
			return cf.failed(fmt.Errorf("read %s from git cat-file: %w", h, err))
		}
		if err := fn(i, info.Type, data[:info.Size]); err != nil {
			return err
		}
	}
	return <-done
}
