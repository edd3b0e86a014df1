package gitstore

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"git-reason/record"
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
	s := openT(t, dir)
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

// TestObjectsReadOnce holds a store to reading an object from the object
// directories once: what it wrote or read before is answered from memory
// (an object is its hash's content), so that a resident session's reads
// of a history it read before cost no file. The objects are removed from
// disk after the first reads: the store still reads them, a fresh store
// does not.
func TestObjectsReadOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gitIn(t, "", "init", "-q", dir)
	s := openT(t, dir)
	written, err := s.putObject(plumbing.BlobObject, []byte("written here\n"))
	if err != nil {
		t.Fatal(err)
	}
	// An object another program wrote, read once from disk.
	other := plumbing.ComputeHash(plumbing.BlobObject, []byte("written by git\n"))
	if out := gitInStdin(t, dir, "written by git\n", "hash-object", "-w", "--stdin"); out != other.String() {
		t.Fatalf("git hash-object wrote %s, want %s", out, other)
	}
	if _, err := s.objectBytes(plumbing.BlobObject, other); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, ".git", "objects", written.String()[:2])); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, ".git", "objects", other.String()[:2])); err != nil {
		t.Fatal(err)
	}
	for h, want := range map[plumbing.Hash]string{written: "written here\n", other: "written by git\n"} {
		if size, err := s.objectSize(h); err != nil || size != int64(len(want)) {
			t.Errorf("size of %s read again: %d, %v; want %d from memory", h, size, err, len(want))
		}
		if data, err := s.objectBytes(plumbing.BlobObject, h); err != nil || string(data) != want {
			t.Errorf("%s read again: %q, %v; want %q from memory", h, data, err, want)
		}
		if _, err := s.objectBytes(plumbing.CommitObject, h); !errors.Is(err, plumbing.ErrObjectNotFound) {
			t.Errorf("%s read again as a commit: %v, want not found, as a read from disk answers", h, err)
		}
		fresh, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fresh.objectBytes(plumbing.BlobObject, h); err == nil {
			t.Errorf("a fresh store read %s, removed from disk", h)
		}
	}
}

// TestAppendObjectsFail: an append whose objects cannot be written (a
// file where objects/pack should be) fails, and leaves the task's ref
// where it was and no lock behind, although it took the ref's lock and
// wrote the new value to it while the objects were being written
// (Repo.LockRef).
func TestAppendObjectsFail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openT(t, initRepo(t))
	w := &record.Writer{Store: s, Actor: "Loose Test <loose@example.com>", Origin: "origin-loose"}
	body := func(subject string) []byte {
		return []byte(`{"subject":"` + subject + `","question":"q","materiality":"trivial","reversibility":"reversible"}`)
	}
	first, err := w.Append(ctx, "T", record.KindAssessment, body("first"))
	if err != nil {
		t.Fatal(err)
	}
	pack := filepath.Join(s.Repo.CommonDir, "objects", "pack")
	if err := os.Remove(pack); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pack, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(ctx, "T", record.KindAssessment, body("second")); err == nil || !strings.Contains(err.Error(), "write object") {
		t.Fatalf("append with a file in the way of objects/pack: got %v, want the object's write error", err)
	}
	assertRef(t, s.Repo, TaskRef("T"), first.Commit)
}
