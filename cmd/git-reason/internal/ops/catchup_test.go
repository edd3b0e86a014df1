package ops

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/gitstore"
)

// A clone's first catch-up remembers every tracking ref as integrated
// (saveCatchUp): fetched.heads and fetched.loose are written, and their
// digest made, without an allocation a ref (fmt.Fprintf allocated two a
// line and the buffer's doublings their copies; the digest converted
// each name and value to bytes and lowered a copy of the value: 10 a
// ref in all).
func TestFirstCatchUpMemoAllocations(t *testing.T) {
	const n = 2000
	sess, _, _ := residentSession(t)
	var refs []gitstore.Ref
	for i := range n {
		refs = append(refs, gitstore.Ref{Name: fmt.Sprintf("%sorigin/T-%06d", gitstore.RemotePrefix, i), Hash: fmt.Sprintf("%040x", i+1)})
	}
	var dirs []string
	for range 3 {
		dirs = append(dirs, t.TempDir())
	}
	i := 0
	allocs := testing.AllocsPerRun(1, func() {
		tr := &tracked{refs: refs, known: map[string]string{}, whole: true, live: n, loose: refs}
		if err := sess.saveCatchUp(dirs[i], []byte("stamp\n"), true, tr); err != nil {
			t.Fatal(err)
		}
		i++
	})
	if data, err := os.ReadFile(filepath.Join(dirs[0], headsFile)); err != nil || strings.Count(string(data), "\n") != n {
		t.Fatalf("fetched.heads of %d refs: %d lines (%v)", n, strings.Count(string(data), "\n"), err)
	}
	t.Logf("saveCatchUp of %d refs: %.0f allocations", n, allocs)
	if allocs > n/10 {
		t.Errorf("a first catch-up's memo of %d tracking refs made %.0f allocations, want at most %d: a line of fetched.heads or fetched.loose, and a ref of their digest, cost none", n, allocs, n/10)
	}
}
