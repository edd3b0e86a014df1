package harness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// FastImport, which the bulk writer and the benchmarks that make their
// repositories in one stream share, ends the stream itself (the commit of
// a stream that says nothing of "done" is on its ref), returns fill's own
// error rather than fast-import's complaint of a stream cut short, and
// names what fast-import printed when the stream is wrong.
func TestFastImport(t *testing.T) {
	NeedGit(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "repo")
	Git(t, "", "init", "-q", dir)

	err := FastImport(ctx, dir, nil, func(w *bufio.Writer) error {
		_, err := fmt.Fprintf(w, "commit refs/heads/imported\ncommitter A <a@example.invalid> 1700000000 +0000\ndata 3\none\nM 644 inline f\ndata 2\nx\n\n")
		return err
	})
	if err != nil {
		t.Fatalf("a whole stream: %v", err)
	}
	if got := Git(t, dir, "log", "--format=%s", "refs/heads/imported"); got != "one" {
		t.Errorf("refs/heads/imported after the stream: %q, want its one commit", got)
	}

	stop := errors.New("fill stopped")
	err = FastImport(ctx, dir, nil, func(w *bufio.Writer) error {
		fmt.Fprintf(w, "blob\ndata 1\nx\n")
		return stop
	})
	if !errors.Is(err, stop) {
		t.Errorf("fill failing: %v, want fill's own error", err)
	}

	err = FastImport(ctx, dir, nil, func(w *bufio.Writer) error {
		_, err := w.WriteString("no such command\n")
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "git fast-import") || !strings.Contains(err.Error(), "no such command") {
		t.Errorf("a wrong stream: %v, want fast-import's error naming the line", err)
	}
}

// FastImport's git keeps the memory of each object's zlib stream for the
// next: 4,000 objects cost it less than a page fault each, not 18 (the
// memory given back to the system at each free and faulted in again).
func TestFastImportFaults(t *testing.T) {
	NeedGit(t)
	dir := filepath.Join(t.TempDir(), "repo")
	Git(t, "", "init", "-q", dir)
	const n = 4000
	before := childFaults()
	err := FastImport(context.Background(), dir, nil, func(w *bufio.Writer) error {
		for i := range n {
			fmt.Fprintf(w, "blob\ndata %d\nobject %06d\n", len("object 000000"), i)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if faults := childFaults() - before; faults >= n {
		t.Errorf("git fast-import of %d objects: %d page faults, want fewer than one an object", n, faults)
	}
}
