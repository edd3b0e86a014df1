package gitstore

import (
	"bytes"
	"compress/zlib"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestStoreZlib holds the stored-block stream to what compress/zlib reads
// (its checksum included) at the sizes where blocks split.
func TestStoreZlib(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 0xffff - 9, 0xffff - 8, 0xffff, 0xffff + 1, 3*0xffff + 17} {
		data := bytes.Repeat([]byte("records/"), n/8+1)[:n]
		header := []byte("blob 123\x00")
		var buf bytes.Buffer
		storeZlib(&buf, header, data)
		r, err := zlib.NewReader(&buf)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if want := append(header, data...); !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: read back %d bytes, want %d", n, len(got), len(want))
		}
	}
}

// TestPutObjectReadByGit writes objects the way an append does (with the
// fan-out directory missing, as git prune-packed leaves it) and has git
// read each back, and fsck the lot.
func TestPutObjectReadByGit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	git := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("", "init", "-q")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{"", "a record\n", strings.Repeat("0123456789abcdef", 9000)} {
		h, err := s.putObject(plumbing.BlobObject, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.TrimSpace(git(data, "hash-object", "--stdin")); h.String() != want {
			t.Fatalf("blob of %d bytes written as %s; git hashes it %s", len(data), h, want)
		}
		if got := git("", "cat-file", "blob", h.String()); got != data {
			t.Fatalf("git reads %d bytes of blob %s, want %d", len(got), h, len(data))
		}
		fi, err := os.Stat(filepath.Join(dir, ".git", "objects", h.String()[:2], h.String()[2:]))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o222 != 0 {
			t.Errorf("object %s has mode %v; git's are read-only", h, fi.Mode().Perm())
		}
		// The same object again replaces it with the same bytes.
		if h2, err := s.putObject(plumbing.BlobObject, []byte(data)); err != nil || h2 != h {
			t.Fatalf("writing %s again: %v, %s", h, err, h2)
		}
	}
	git("", "fsck", "--strict", "--no-dangling")
	left, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "tmp_obj_*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}
