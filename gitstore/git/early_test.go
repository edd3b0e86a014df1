package git

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestEarlyTakenOnce: a command Early started is what the first Run of an
// equal command returns (what git answered when it started, not now),
// once; a later Run, or a Run of the same arguments in another
// environment, starts git again. A Then started from Early's result is
// taken the same way, and one whose next declines starts nothing.
func TestEarlyTakenOnce(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	must := func(args ...string) string {
		t.Helper()
		out, err := Run(ctx, dir, args...)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	must("init", "-q")
	must("commit", "-q", "--allow-empty", "-m", "one", "--author", "A <a@b>")
	first := must("rev-parse", "HEAD")
	read := Cmd{Dir: dir, Args: []string{"rev-parse", "HEAD"}}
	s := Early(read)
	then := s.Then(func(out []byte, err error) (Cmd, bool) {
		return Cmd{Dir: dir, Args: []string{"log", "-1", "--format=%s", strings.TrimSpace(string(out))}}, err == nil
	})
	declined := s.Then(func([]byte, error) (Cmd, bool) { return Cmd{}, false })
	if out, err := s.Wait(); err != nil || strings.TrimSpace(string(out)) != first {
		t.Fatalf("Wait: %q, %v", out, err)
	}
	then.Wait()
	<-declined.keyed
	must("commit", "-q", "--allow-empty", "-m", "two")
	second := must("rev-parse", "--verify", "HEAD") // other arguments: started anew
	if second == first {
		t.Fatal("HEAD did not move")
	}
	t.Run("other environment", func(t *testing.T) {
		t.Setenv("GIT_AUTHOR_NAME", "someone else")
		if out, _ := read.Run(ctx); strings.TrimSpace(string(out)) != second {
			t.Errorf("a Run in another environment returned the early result %q, want %s", out, second)
		}
	})
	if out, _ := (Cmd{Dir: filepath.Join(dir, "."), Args: read.Args}).Run(ctx); strings.TrimSpace(string(out)) != first {
		t.Errorf("the first equal Run returned %q, want the early result %s", out, first)
	}
	if out, _ := read.Run(ctx); strings.TrimSpace(string(out)) != second {
		t.Errorf("the second Run returned %q, want git's answer now, %s", out, second)
	}
	if out, _ := (Cmd{Dir: dir, Args: []string{"log", "-1", "--format=%s", first}}).Run(ctx); strings.TrimSpace(string(out)) != "one" {
		t.Errorf("Then's command returned %q", out)
	}
	early.Lock()
	defer early.Unlock()
	for _, e := range early.started {
		if e.key != nil {
			t.Errorf("left untaken: %q", e.key[:min(len(e.key), 8)])
		}
	}
}
