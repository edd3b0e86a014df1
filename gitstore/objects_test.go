package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The store's own commit and tree codec is held to go-git's object
// package, which it replaced: the same fields or the same refusal for
// every content, and the same bytes written.

const (
	hashA = "1111111111111111111111111111111111111111"
	hashB = "2222222222222222222222222222222222222222"
	hashC = "3333333333333333333333333333333333333333"
)

// commitSeeds are commit contents in the forms git writes and in the
// forms a forger might: headers out of place, repeated, continued,
// missing, malformed signatures and hashes, no empty line, CR, NUL.
var commitSeeds = []string{
	"tree " + hashA + "\nauthor A <a@x> 1700000000 +0100\ncommitter C <c@x> 1700000001 -0230\n\nmsg\n\nReason-Task: T\n",
	"tree " + hashA + "\nparent " + hashB + "\nparent " + hashC + "\nauthor A <a@x> 1700000000 +0000\ncommitter C <c@x> 1700000001 +0000\n\nmerge\n",
	"tree " + hashA + "\nparent " + hashB + "\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 2 +0000\nencoding ISO-8859-1\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\nmergetag object " + hashC + "\n type commit\n\nsigned\n",
	"tree " + hashA + "\ncommitter C <c@x> 2 +0000\nauthor A <a@x> 1 +0000\n\nswapped\n",
	"tree " + hashA + "\nauthor A <a@x> 1 +0000\nparent " + hashB + "\ncommitter C <c@x> 2 +0000\n\nlate parent\n",
	"tree " + hashA + "\nx-extra one\n continued\nauthor A <a@x> 1 +0000\n\nauthor after a header\n",
	"tree " + hashA + "\nauthor A <a@x> 1 +0000\nauthor B <b@x> 2 +0000\ncommitter C <c@x> 3 +0000\n\ntwo authors\n",
	"tree " + hashA + "\ntree " + hashB + "\n\nduplicate tree\n",
	"tree " + hashA + "\nauthor A <a@x>\ncommitter C <c@x> notanumber +0000\n\nno times\n",
	"tree " + hashA + "\nauthor A <a@x> 1 +01\ncommitter C <c@x> 2 zzzzz\n\nshort zones\n",
	"tree " + hashA + "\nauthor A <a@x> -5 -0100\ncommitter <> 2 +0000\n\nnegative\n",
	"tree " + hashA + "\nauthor no brackets 1 +0000\ncommitter C >c@x< 2 +0000\n\nbad idents\n",
	"tree " + hashA + "\nauthor  A  B  <a@x>  1 +0000\n\nspaces\n",
	"tree " + hashA + "\nauthor A <a@x> 1 +0000",
	"tree " + hashA + "\nparent " + hashB,
	"tree " + hashA + "\nparent " + hashB + "\n",
	"tree " + hashA + "\nparent " + hashB + "\nparent " + hashC,
	"tree " + hashA,
	"tree " + hashA + "\n",
	"tree " + hashA + "\n\n",
	"tree " + hashA + "\r\nauthor A <a@x> 1 +0000\n\ncr\n",
	"tree " + hashA + "\nparent 12345\n\nbad parent\n",
	"tree " + strings.ToUpper(hashA) + "x\n\nbad tree\n",
	"tree\n\nno hash\n",
	"parent " + hashB + "\ntree " + hashA + "\n\nparent first\n",
	"\ntree " + hashA + "\n\nleading empty line\n",
	"",
	"tree " + hashA + "\n \n\ncontinuation at the start\n",
	"tree " + hashA + "\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 2 +0000\n\n\n\nempty lines\n",
	"tree " + hashA + "\nauthor A\x00 <a@x> 1 +0000\n\nnul\n",
	"tree " + hashA + "\ngpgsig a\n b\n\nsig then message\n",
	"tree " + hashA + "\nauthor A <a@x> 99999999999999999999 +0000\n\nhuge time\n",
}

func goGitCommit(data []byte) (*object.Commit, error) {
	obj := &plumbing.MemoryObject{}
	obj.SetType(plumbing.CommitObject)
	obj.Write(data)
	c := &object.Commit{}
	return c, c.Decode(obj)
}

func sameSignature(a Signature, b object.Signature) bool {
	return a.Name == b.Name && a.Email == b.Email && a.When.Equal(b.When) &&
		a.When.Format(time.RFC3339) == b.When.Format(time.RFC3339)
}

// gitFrame reads a commit's tree and parents as git's parse_commit_buffer
// (commit.c) does, transcribed: "tree " and 40 hex digits, a line end and
// more after it, then "parent " lines while one could fit before the end,
// each with 40 hex digits, a line end and more after it. ok is false where
// git refuses the commit ("bogus commit object", "bad parents").
// TestCommitFramingAsGit holds this transcription to git itself.
func gitFrame(data []byte) (tree string, parents []string, ok bool) {
	const treeLen, parentLen = 45, 47
	if len(data) <= treeLen+1 || !bytes.HasPrefix(data, []byte("tree ")) || data[treeLen] != '\n' ||
		!plumbing.IsHash(string(data[5:treeLen])) {
		return "", nil, false
	}
	tree = strings.ToLower(string(data[5:treeLen]))
	for pos := treeLen + 1; pos+parentLen < len(data) && bytes.HasPrefix(data[pos:], []byte("parent ")); pos += parentLen + 1 {
		if len(data) <= pos+parentLen+1 || !plumbing.IsHash(string(data[pos+7:pos+parentLen])) || data[pos+parentLen] != '\n' {
			return "", nil, false
		}
		parents = append(parents, strings.ToLower(string(data[pos+7:pos+parentLen])))
	}
	return tree, parents, true
}

// checkCommitAsGoGit holds parseCommit to git for the tree, the parents
// and whether the commit is refused (gitFrame), and to go-git's decoder
// for the other fields wherever both read the commit.
func checkCommitAsGoGit(t *testing.T, data []byte) {
	t.Helper()
	h := plumbing.ComputeHash(plumbing.CommitObject, data)
	got, err := parseCommit(h, data)
	tree, parents, ok := gitFrame(data)
	if (err == nil) != ok {
		t.Fatalf("%q: error %v, git reads it: %v", data, err, ok)
	}
	if err != nil {
		if !errors.Is(err, errMalformedCommit) {
			t.Fatalf("%q: error %q is not a malformed commit", data, err)
		}
		return
	}
	if got.TreeHash.String() != tree || fmt.Sprint(got.ParentHashes) != fmt.Sprint(parents) {
		t.Fatalf("%q: tree %s parents %v, git's %s %v", data, got.TreeHash, got.ParentHashes, tree, parents)
	}
	want, wantErr := goGitCommit(data)
	if wantErr != nil {
		return
	}
	if got.Hash != want.Hash || !sameSignature(got.Author, want.Author) || !sameSignature(got.Committer, want.Committer) || got.Message != want.Message {
		t.Fatalf("%q:\n got %+v\nwant hash %s author %+v committer %+v message %q", data, got,
			want.Hash, want.Author, want.Committer, want.Message)
	}
}

// TestCommitFramingAsGit puts commits to git itself (git log --no-walk, which parses
// them as every history walk does) and holds gitFrame and parseCommit to
// its tree, parents and refusals: the seeds, and each cut at its line
// ends, where the forms git reads differently from go-git lie (a last
// parent line without a line end is no parent; one with nothing after it
// is refused). -short puts the seeds alone.
//
// git reads them all in two processes, not two per commit: hash-object
// writes every case (--stdin-paths), and one git log --ignore-missing
// parses each, printing those it reads and naming on stderr each it
// refuses ("bogus commit object", "bad parents"), where git log of that
// commit alone exits with "bad object". The cases name one tree (hashA)
// and parents of their own (hashB, hashC), never an object of another
// type, so that what one process learnt of a commit cannot change how it
// reads the next.
func TestCommitFramingAsGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	var cases []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			cases = append(cases, s)
		}
	}
	for _, s := range commitSeeds {
		add(s)
		if testing.Short() {
			continue
		}
		for i := range len(s) {
			if s[i] == '\n' {
				for _, j := range []int{i, i + 1, i + 2} {
					if j >= 0 && j <= len(s) {
						add(s[:j])
					}
				}
			}
		}
	}
	files := t.TempDir()
	var paths strings.Builder
	for i, s := range cases {
		p := filepath.Join(files, fmt.Sprint(i))
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		paths.WriteString(p + "\n")
	}
	cmd := exec.Command("git", "--git-dir="+dir, "hash-object", "-t", "commit", "--literally", "-w", "--stdin-paths")
	cmd.Stdin = strings.NewReader(paths.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git hash-object: %v", err)
	}
	hashes := strings.Fields(string(out))
	if len(hashes) != len(cases) {
		t.Fatalf("git hash-object wrote %d commits of %d", len(hashes), len(cases))
	}
	var stderr bytes.Buffer
	cmd = exec.Command("git", "--git-dir="+dir, "log", "--no-walk", "--ignore-missing", "--stdin", "--format=%H %T %P")
	cmd.Stdin = strings.NewReader(strings.Join(hashes, "\n") + "\n")
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("git log: %v\n%s", err, stderr.Bytes())
	}
	read := map[string]string{} // commit -> "tree parents", for each git reads
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if h, frame, ok := strings.Cut(line, " "); ok {
			read[h] = strings.TrimSpace(frame)
		}
	}
	refused := stderr.String()
	for i, s := range cases {
		data, h := []byte(s), hashes[i]
		want, gitReads := read[h]
		if !gitReads && !strings.Contains(refused, h) {
			t.Fatalf("%q: git log neither lists %s nor says why it refuses it:\n%s", data, h, refused)
		}
		tree, parents, ok := gitFrame(data)
		if gitReads != ok {
			t.Errorf("%q: git log reads it: %v, gitFrame reads it: %v", data, gitReads, ok)
			continue
		}
		if ok {
			if got := strings.TrimSpace(tree + " " + strings.Join(parents, " ")); got != want {
				t.Errorf("%q: gitFrame %q, git %q", data, got, want)
			}
		}
		c, err := parseCommit(plumbing.ComputeHash(plumbing.CommitObject, data), data)
		if (err == nil) != ok {
			t.Errorf("%q: parseCommit error %v, git reads it: %v", data, err, ok)
		} else if ok {
			got := c.TreeHash.String()
			for _, p := range c.ParentHashes {
				got += " " + p.String()
			}
			if got != want {
				t.Errorf("%q: parseCommit %q, git %q", data, got, want)
			}
		}
	}
	t.Logf("%d commits put to git, %d of them read", len(cases), len(read))
}

func TestCommitDecodesAsGoGit(t *testing.T) {
	t.Parallel()
	for _, s := range commitSeeds {
		checkCommitAsGoGit(t, []byte(s))
	}
	// Every seed cut at every byte, and with random bytes changed to the
	// characters the format gives meaning to.
	rng := rand.New(rand.NewPCG(1, 2))
	special := []byte{'\n', ' ', '<', '>', '-', '+', '0', '9', 'a', 0}
	for _, s := range commitSeeds {
		for i := range len(s) {
			checkCommitAsGoGit(t, []byte(s[:i]))
		}
		for range 200 {
			b := []byte(s)
			if len(b) == 0 {
				break
			}
			for range 1 + rng.IntN(3) {
				b[rng.IntN(len(b))] = special[rng.IntN(len(special))]
			}
			checkCommitAsGoGit(t, b)
		}
	}
}

func FuzzCommitDecodesAsGoGit(f *testing.F) {
	for _, s := range commitSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkCommitAsGoGit(t, data) })
}

func TestCommitEncodesAsGoGit(t *testing.T) {
	t.Parallel()
	east := time.FixedZone("", 5*3600+30*60)
	for _, c := range []commit{
		{TreeHash: plumbing.NewHash(hashA), Author: Signature{"A", "a@x", time.Unix(1700000000, 0).In(east)},
			Committer: Signature{"C D", "c@x", time.Unix(1700000001, 0).UTC()}, Message: "x: y\n\nReason-Task: T\n"},
		{TreeHash: plumbing.NewHash(hashA), ParentHashes: []plumbing.Hash{plumbing.NewHash(hashB), plumbing.NewHash(hashC)},
			Author: Signature{"", "", time.Unix(-10, 0).In(time.FixedZone("", -7*3600))}, Message: ""},
	} {
		want := &plumbing.MemoryObject{}
		oc := &object.Commit{TreeHash: c.TreeHash, ParentHashes: c.ParentHashes, Author: object.Signature(c.Author),
			Committer: object.Signature(c.Committer), Message: c.Message}
		if err := oc.Encode(want); err != nil {
			t.Fatal(err)
		}
		wantData, _ := goGitEncoded(want)
		if got := c.encode(); !bytes.Equal(got, wantData) {
			t.Errorf("encoded\n%q\ngo-git's\n%q", got, wantData)
		}
		checkCommitAsGoGit(t, c.encode())
	}
}

func treeBytes(entries ...string) []byte {
	var b []byte
	for i, e := range entries {
		b = append(b, e...)
		b = append(b, 0)
		b = append(b, bytes.Repeat([]byte{byte(i + 1)}, 20)...)
	}
	return b
}

// TestTreeEncodesAsGoGit holds the tree encoder to go-git's: the same
// bytes for the same entries.
func TestTreeEncodesAsGoGit(t *testing.T) {
	t.Parallel()
	entries := []TreeEntry{
		{Name: "a", Mode: filemode.Regular, Hash: plumbing.NewHash(hashA)},
		{Name: "a.json", Mode: filemode.Executable, Hash: plumbing.NewHash(hashB)},
		{Name: "a", Mode: filemode.Dir, Hash: plumbing.NewHash(hashC)}, // "a/" sorts after "a.json"
	}
	got, err := encodeTree(entries)
	if err != nil {
		t.Fatal(err)
	}
	want := &plumbing.MemoryObject{}
	oes := make([]object.TreeEntry, len(entries))
	for i, e := range entries {
		oes[i] = object.TreeEntry(e)
	}
	if err := (&object.Tree{Entries: oes}).Encode(want); err != nil {
		t.Fatal(err)
	}
	wantData, _ := goGitEncoded(want)
	if !bytes.Equal(got, wantData) {
		t.Errorf("encoded\n%q\ngo-git's\n%q", got, wantData)
	}
	// Out of git's order, or a name with a NUL: refused, as go-git does.
	if _, err := encodeTree([]TreeEntry{entries[2], entries[1]}); err == nil {
		t.Error("unsorted entries were encoded")
	}
	if _, err := encodeTree([]TreeEntry{{Name: "a\x00b", Mode: filemode.Regular}}); err == nil {
		t.Error("a name with a NUL was encoded")
	}
}

// goGitEncoded is the content of an object go-git encoded into memory.
func goGitEncoded(obj *plumbing.MemoryObject) ([]byte, error) {
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(r)
	return b.Bytes(), err
}
