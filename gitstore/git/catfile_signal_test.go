package git

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestCatFileInterrupted: a git cat-file that Ctrl-C ended (a terminal
// sends SIGINT to the whole process group, git's processes with this
// one) makes the read fail as an interrupted git, not as an answer cut
// short. Read as "EOF", it made a command stopped by Ctrl-C warn that a
// task's history does not read and to verify it.
func TestCatFileInterrupted(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), dir, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	cf, err := StartCatFile(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	blob, err := Cmd{Dir: dir, Args: []string{"hash-object", "-w", "--stdin"}, Stdin: strings.NewReader("record")}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := cf.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	_, err = cf.Infos([]string{string(blob[:40])})
	if err == nil {
		t.Fatal("a read from a git cat-file that SIGINT ended succeeded")
	}
	if !Interrupted(err) {
		t.Errorf("read from a git cat-file that SIGINT ended: %v; want an error Interrupted reports", err)
	}
}
