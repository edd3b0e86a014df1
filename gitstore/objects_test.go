package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"git-reason/record"
	"git-reason/reliability/harness"
)

// Commits are decoded and encoded by go-git's object package. These tests
// hold what the store reads of a commit (gitFrame, decodeCommit) to git
// itself, and what it writes to the bytes git writes for the same commit.

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

// frameString is "TREE PARENT...", as git log --format='%T %P' prints.
func frameString(tree plumbing.Hash, parents []plumbing.Hash) string {
	out := tree.String()
	for _, p := range parents {
		out += " " + p.String()
	}
	return out
}

// TestCommitFramingAsGit puts commits to git itself (git log --no-walk, which parses
// them as every history walk does) and holds gitFrame and decodeCommit to
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
	harness.NeedGit(t)
	dir := t.TempDir()
	gitIn(t, "", "init", "-q", "--bare", dir)
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
	hashes := strings.Fields(gitInStdin(t, "", paths.String(), "--git-dir="+dir, "hash-object", "-t", "commit", "--literally", "-w", "--stdin-paths"))
	if len(hashes) != len(cases) {
		t.Fatalf("git hash-object wrote %d commits of %d", len(hashes), len(cases))
	}
	var stderr bytes.Buffer
	cmd := exec.Command("git", "--git-dir="+dir, "log", "--no-walk", "--ignore-missing", "--stdin", "--format=%H %T %P")
	cmd.Stdin = strings.NewReader(strings.Join(hashes, "\n") + "\n")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
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
	stricter := 0
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
			if got := frameString(tree, parents); got != want {
				t.Errorf("%q: gitFrame %q, git %q", data, got, want)
			}
		}
		c, err := decodeCommit(plumbing.ComputeHash(plumbing.CommitObject, data).String(), data)
		switch {
		case err == nil && !ok:
			t.Errorf("%q: decodeCommit reads it, git refuses it", data)
		case err != nil && !ok && !errors.Is(err, errMalformedCommit):
			t.Errorf("%q: git refuses it, decodeCommit says %v", data, err)
		case err != nil && ok:
			// Stricter than git only where go-git's decoder refuses
			// ("parent 12345", which git reads as an unknown header).
			if !errors.Is(err, object.ErrMalformedCommit) {
				t.Errorf("%q: decodeCommit error %v, git reads it", data, err)
			}
			stricter++
		case ok:
			if got := frameString(c.TreeHash, c.ParentHashes); got != want {
				t.Errorf("%q: decodeCommit %q, git %q", data, got, want)
			}
		}
	}
	t.Logf("%d commits put to git, %d of them read; %d of those refused by go-git's decoder", len(cases), len(read), stricter)
}

// TestCommitBytesAsGit writes commits through the store's writer and
// the same commits through git commit-tree: the same ids, so the same
// bytes; and git fsck --strict finds nothing wrong with what the store
// wrote. A signed commit's gpgsig header is checked against git's
// add_header_signature form (every signature line after the first
// continued with one space, an empty one too).
func TestCommitBytesAsGit(t *testing.T) {
	t.Parallel()
	dir := newTestRepo(t)
	s := openT(t, dir)
	tree := plumbing.NewHash(testRepo.tree)
	east := time.FixedZone("", 5*3600+30*60)
	west := time.FixedZone("", -(2*3600 + 30*60))
	var parent plumbing.Hash
	for i, c := range []*object.Commit{
		{Author: Signature{Name: "A B", Email: "a@x", When: time.Unix(1700000000, 0).In(east)},
			Committer: Signature{Name: "C", Email: "c@x", When: time.Unix(1700000001, 0).UTC()}, Message: "x: y\n\nReason-Task: T\n"},
		{Author: Signature{Name: "Ünï Cödé", Email: "u@x", When: time.Unix(1800000000, 0).In(west)},
			Committer: Signature{Name: "Ünï Cödé", Email: "u@x", When: time.Unix(1800000000, 0).In(west)}, Message: "two\n\nlines\n"},
	} {
		c.TreeHash = tree
		args := []string{"commit-tree", tree.String()}
		if i > 0 {
			c.ParentHashes = []plumbing.Hash{parent}
			args = append(args, "-p", parent.String())
		}
		got, err := s.writeCommitObject(c)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(c.Message)
		cmd.Env = append(os.Environ(),
			"GIT_AUTHOR_NAME="+c.Author.Name, "GIT_AUTHOR_EMAIL="+c.Author.Email, "GIT_AUTHOR_DATE="+fmt.Sprintf("@%d %s", c.Author.When.Unix(), c.Author.When.Format("-0700")),
			"GIT_COMMITTER_NAME="+c.Committer.Name, "GIT_COMMITTER_EMAIL="+c.Committer.Email, "GIT_COMMITTER_DATE="+fmt.Sprintf("@%d %s", c.Committer.When.Unix(), c.Committer.When.Format("-0700")))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git commit-tree: %v", err)
		}
		if want := strings.TrimSpace(string(out)); got.String() != want {
			t.Errorf("commit %d: the store wrote %s, git commit-tree %s:\n%s", i, got, want, gitIn(t, dir, "cat-file", "commit", got.String()))
		}
		parent = got
	}

	// Signed: the signer gets the unsigned content; the header is git's.
	signed := &Store{Repo: s.Repo, objs: s.objs}
	var asked []byte
	signed.Sign = func(data []byte) ([]byte, error) {
		asked = data
		return []byte("-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n"), nil
	}
	c := &object.Commit{TreeHash: tree, ParentHashes: []plumbing.Hash{parent}, Message: "signed\n",
		Author: Signature{Name: "A", Email: "a@x", When: time.Unix(1700000000, 0).UTC()}}
	c.Committer = c.Author
	h, err := signed.writeCommitObject(c)
	if err != nil {
		t.Fatal(err)
	}
	unsigned, _ := encodeCommit(c)
	if !bytes.Equal(asked, unsigned) {
		t.Errorf("the signer got\n%q\nwant the unsigned commit\n%q", asked, unsigned)
	}
	body := gitIn(t, dir, "cat-file", "commit", h.String())
	want := "committer A <a@x> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\nsigned"
	if !strings.Contains(body, want) {
		t.Errorf("signed commit:\n%s\nwant it to hold\n%s", body, want)
	}
	gitIn(t, dir, "update-ref", "refs/heads/written", h.String())
	if out, err := gitTryIn(dir, "fsck", "--strict", "--no-dangling", "--no-progress"); err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("git fsck --strict: %v\n%s", err, out)
	}
}

// TestTreeBytesAsGit writes a records/ tree and a root tree through the
// store and the same trees through git mktree: the same ids. Entries out
// of git's order are refused before anything is written.
func TestTreeBytesAsGit(t *testing.T) {
	t.Parallel()
	dir := newTestRepo(t)
	s := openT(t, dir)
	blob := plumbing.NewHash(gitInStdin(t, dir, "{}\n", "hash-object", "-w", "--stdin"))
	entries := []TreeEntry{
		{Name: "0000000001-assessment-01J00000000000000000000000.json", Mode: filemode.Regular, Hash: blob},
		{Name: "0000000002-plan-01J00000000000000000000001.json", Mode: filemode.Regular, Hash: blob},
	}
	records, err := s.writeTree(entries)
	if err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&in, "100644 blob %s\t%s\n", e.Hash, e.Name)
	}
	if want := gitInStdin(t, dir, in.String(), "mktree"); records.String() != want {
		t.Errorf("records tree: the store wrote %s, git mktree %s", records, want)
	}
	root, err := s.writeTree(recordsEntry(records))
	if err != nil {
		t.Fatal(err)
	}
	if want := gitInStdin(t, dir, "040000 tree "+records.String()+"\t"+RecordsDir+"\n", "mktree"); root.String() != want {
		t.Errorf("root tree: the store wrote %s, git mktree %s", root, want)
	}
	if _, err := s.writeTree([]TreeEntry{entries[1], entries[0]}); err == nil {
		t.Error("entries out of git's order were written")
	}
}

// TestAppendedTreesAsGit appends records one after another through one
// store, whose appends after the first build the records/ tree from the
// one before (recordsTreeWith): after each append the head's records/ tree
// is the tree git mktree makes of every record appended so far, the
// content the store keeps for the next append is that tree's, and git
// fsck --strict finds the history sound.
func TestAppendedTreesAsGit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := initRepo(t)
	s := openT(t, dir)
	w := &record.Writer{Store: s, Actor: "Tree Test <tree@example.com>", Origin: "origin-tree"}
	var listing strings.Builder
	for i := range 5 {
		res, err := w.Append(ctx, "T", record.KindAssessment, fmt.Appendf(nil,
			`{"subject":"s%d","question":"q","materiality":"trivial","reversibility":"reversible"}`, i))
		if err != nil {
			t.Fatal(err)
		}
		blob := gitIn(t, dir, "rev-parse", res.Commit+":"+RecordsDir+"/"+res.FileName())
		fmt.Fprintf(&listing, "100644 blob %s\t%s\n", blob, res.FileName())
		got := gitIn(t, dir, "rev-parse", res.Commit+":"+RecordsDir)
		if want := gitInStdin(t, dir, listing.String(), "mktree"); got != want {
			t.Fatalf("append %d: records tree %s, git mktree of the records appended %s", i+1, got, want)
		}
		kept := s.mem.get("T", res.Commit)
		if kept == nil || kept.tree == nil {
			t.Fatalf("append %d: the store keeps no records tree for the next append", i+1)
		}
		content, err := exec.Command("git", "-C", dir, "cat-file", "tree", got).Output()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(kept.tree, content) {
			t.Fatalf("append %d: the kept records tree is not the head's", i+1)
		}
	}
	args := append(append([]string{"-C", dir}, harness.FsckConfig(dir)...), "fsck", "--strict", "--no-dangling")
	gitIn(t, "", args...)
}

// TestAppendAfterRefMovedAsGit: a store that keeps what it appended (a
// resident server's) appends after the task's ref was moved behind its
// back, by git update-ref back to an earlier record and by another
// writer's append, and after git gc packed and pruned: each append's
// records/ tree is git mktree's of the records its head holds, not of
// what the store last kept, and git fsck --strict passes.
func TestAppendAfterRefMovedAsGit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := initRepo(t)
	s := openT(t, dir)
	w := &record.Writer{Store: s, Actor: "Tree Test <tree@example.com>", Origin: "origin-tree", Keep: true}
	other := &record.Writer{Store: openT(t, dir), Actor: "Other <other@example.com>", Origin: "origin-other"}
	lines := map[string]string{} // commit -> the listing of its records tree
	n := 0
	appendAs := func(w *record.Writer, parent string) string {
		t.Helper()
		n++
		res, err := w.Append(ctx, "T", record.KindAssessment, fmt.Appendf(nil,
			`{"subject":"s%d","question":"q","materiality":"trivial","reversibility":"reversible"}`, n))
		if err != nil {
			t.Fatal(err)
		}
		if parent != "" && res.Parent != parent {
			t.Fatalf("append %d went on from %s, want %s", n, res.Parent, parent)
		}
		blob := gitIn(t, dir, "rev-parse", res.Commit+":"+RecordsDir+"/"+res.FileName())
		lines[res.Commit] = lines[parent] + fmt.Sprintf("100644 blob %s\t%s\n", blob, res.FileName())
		got := gitIn(t, dir, "rev-parse", res.Commit+":"+RecordsDir)
		if want := gitInStdin(t, dir, lines[res.Commit], "mktree"); got != want {
			t.Fatalf("append %d: records tree %s, git mktree of its head's records %s", n, got, want)
		}
		return res.Commit
	}
	first := appendAs(w, "")
	second := appendAs(w, first)
	appendAs(w, second)
	gitIn(t, dir, "update-ref", TaskRef("T"), second) // back, behind the store
	fourth := appendAs(w, second)
	fifth := appendAs(other, fourth) // another writer's
	sixth := appendAs(w, fifth)
	gitIn(t, dir, "gc", "--prune=now", "--quiet")
	appendAs(w, sixth)
	args := append(append([]string{"-C", dir}, harness.FsckConfig(dir)...), "fsck", "--strict")
	gitIn(t, "", args...)
}
