package gitstore

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

const (
	nameA = "0000000001-assessment-01J00000000000000000000000.json"
	nameB = "0000000002-plan-01J00000000000000000000001.json"
)

// rawEntries is a tree's bytes: each entry "MODE NAME", in the order
// given, all naming blob.
func rawEntries(blob []byte, entries ...string) []byte {
	var b []byte
	for _, e := range entries {
		b = append(append(append(b, e...), 0), blob...)
	}
	return b
}

// treeCases are records/ trees: those the reader reads, and those it
// refuses, with what its refusal says.
var treeCases = []struct {
	name    string
	entries []string
	refusal string // "" reads
}{
	{"two records", []string{"100644 " + nameA, "100644 " + nameB}, ""},
	{"empty", nil, ""},
	{"duplicate names", []string{"100644 " + nameA, "100644 " + nameA}, "in the tree twice"},
	{"out of order", []string{"100644 " + nameB, "100644 " + nameA}, "out of git's order"},
	{"executable", []string{"100755 " + nameA}, "has mode 100755"},
	{"link", []string{"120000 " + nameA}, "has mode 120000"},
	{"tree", []string{"40000 " + nameA}, "has mode 40000"},
	{"submodule", []string{"160000 " + nameA}, "has mode 160000"},
	{"zero-padded mode", []string{"0100644 " + nameA}, "has mode 0100644"},
	{"group-writable", []string{"100664 " + nameA}, "has mode 100664"},
	{"empty name", []string{"100644 "}, "not a record's name"},
	{"dot", []string{"100644 ."}, "not a record's name"},
	{"dot dot", []string{"100644 .."}, "not a record's name"},
	{".git", []string{"100644 .git"}, "not a record's name"},
	{"slash", []string{"100644 a/" + nameA}, "not a record's name"},
	{"no kind", []string{"100644 0000000001-bogus-01J00000000000000000000000.json"}, "not a record's name"},
	{"short id", []string{"100644 0000000001-plan-ABCDE.json"}, "not a record's name"},
	{"lower-case id", []string{"100644 0000000001-plan-01j00000000000000000000000.json"}, "not a record's name"},
	{"short clock", []string{"100644 1-plan-01J00000000000000000000000.json"}, "not a record's name"},
	{"not json", []string{"100644 0000000001-plan-01J00000000000000000000000.txt"}, "not a record's name"},
}

func TestTreeReader(t *testing.T) {
	t.Parallel()
	blob := bytes.Repeat([]byte{0xab}, 20)
	for _, c := range treeCases {
		_, err := parseTree("t", rawEntries(blob, c.entries...), nil)
		switch {
		case c.refusal == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.refusal != "" && (err == nil || !strings.Contains(err.Error(), c.refusal)):
			t.Errorf("%s: %v, want a refusal saying %q", c.name, err, c.refusal)
		}
	}
	// Entries taken from a tree read before (like) are checked at the
	// seam: a duplicate of like's last entry is still refused.
	like, err := parseTree("t", rawEntries(blob, "100644 "+nameA), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseTree("u", rawEntries(blob, "100644 "+nameA, "100644 "+nameA), like); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a duplicate after the shared entries: %v", err)
	}
	for _, c := range []struct {
		data    []byte
		records string
		ok      bool
	}{
		{nil, "", true},
		{rawEntries(blob, "40000 records"), hex.EncodeToString(blob), true},
		{rawEntries(blob, "040000 records"), "", false},
		{rawEntries(blob, "100644 records"), "", false},
		{rawEntries(blob, "40000 records", "40000 records"), "", false},
		{rawEntries(blob, "100644 README", "40000 records"), "", false},
		{rawEntries(blob, "40000 record"), "", false},
	} {
		got, err := rootRecords("r", c.data)
		if (err == nil) != c.ok || got != c.records {
			t.Errorf("root %q: %q, %v", c.data, got, err)
		}
	}
}

// TestTreeReaderRefusesWhatFsckRefuses writes each case's tree with git
// (hash-object --literally, which checks nothing) and asks git fsck
// --strict about them all: every tree git flags, the reader refuses too.
func TestTreeReaderRefusesWhatFsckRefuses(t *testing.T) {
	t.Parallel()
	harness.NeedGit(t)
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "--template=")
	blobHex := gitInStdin(t, dir, "{}\n", "hash-object", "-w", "--stdin")
	blob, _ := hex.DecodeString(blobHex)
	trees := map[string]int{}
	for i, c := range treeCases {
		trees[gitInStdin(t, dir, string(rawEntries(blob, c.entries...)), "hash-object", "-t", "tree", "--literally", "-w", "--stdin")] = i
	}
	cmd := exec.Command("git", "fsck", "--strict", "--no-progress")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	flagged := regexp.MustCompile(`(?m)^(?:error|warning) in tree ([0-9a-f]{40}): (\w+)`).FindAllStringSubmatch(string(out), -1)
	if len(flagged) < 5 {
		t.Fatalf("git fsck flagged %d trees, want the duplicate, unsorted, empty, dot and slash ones at least:\n%s", len(flagged), out)
	}
	for _, f := range flagged {
		i, ok := trees[f[1]]
		if !ok {
			continue
		}
		if treeCases[i].refusal == "" {
			t.Errorf("%s: git fsck says %s; the reader reads it", treeCases[i].name, f[2])
		}
	}
}

// TestKeptTreeAsGit: the tree a saved state's entries are kept as, for a
// later tree to be compared against, is git mktree's tree of them to the
// byte, with each entry placed as the tree reader places it; entries no
// tree holds give none.
func TestKeptTreeAsGit(t *testing.T) {
	t.Parallel()
	harness.NeedGit(t)
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "--template=")
	names := []string{nameA, nameB, "0000000003-conclusion-01J00000000000000000000002.json"}
	var files []cacheEntry
	var listing strings.Builder
	for i, n := range names {
		blob := gitInStdin(t, dir, fmt.Sprintf("{%d}\n", i), "hash-object", "-w", "--stdin")
		files = append(files, cacheEntry{Name: n, Blob: blob})
		fmt.Fprintf(&listing, "100644 blob %s\t%s\n", blob, n)
	}
	kept := treeOf(files)
	if kept == nil {
		t.Fatal("no tree kept for three records")
	}
	h := gitInStdin(t, dir, listing.String(), "mktree")
	cmd := exec.Command("git", "cat-file", "tree", h)
	cmd.Dir = dir
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file: %v", err)
	}
	if !bytes.Equal(kept.data, want) {
		t.Fatalf("kept tree:\n%q\ngit mktree's:\n%q", kept.data, want)
	}
	read, err := parseTree(h, want, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kept.ents, read.ents) {
		t.Errorf("entries placed at %v, the reader places them at %v", kept.ents, read.ents)
	}
	for i := range names {
		if got := string(kept.name(i)); got != names[i] {
			t.Errorf("entry %d is named %q, want %q", i, got, names[i])
		}
	}
	for what, bad := range map[string][]cacheEntry{
		"out of order": {files[1], files[0]},
		"twice":        {files[0], files[0]},
		"short hash":   {{Name: nameA, Blob: files[0].Blob[:39]}},
		"not hex":      {{Name: nameA, Blob: strings.Repeat("g", 40)}},
		"NUL in name":  {{Name: "a\x00b", Blob: files[0].Blob}},
	} {
		if treeOf(bad) != nil {
			t.Errorf("%s: a tree was kept", what)
		}
	}
}

// BenchmarkKeptTree keeps a records/ tree of 1,000 entries as a status
// after new records does (treeOf).
func BenchmarkKeptTree(b *testing.B) {
	files := make([]cacheEntry, 1000)
	for i := range files {
		files[i] = cacheEntry{Name: fmt.Sprintf("%010d-assessment-01J00000000000000000000000.json", i+1),
			Blob: fmt.Sprintf("%040x", i+1)}
	}
	for b.Loop() {
		if treeOf(files) == nil {
			b.Fatal("no tree kept")
		}
	}
}
