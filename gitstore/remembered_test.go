package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRememberedOnlyItsOwnEntries: what one process remembers and saves
// another reads back; an entry edited, moved to another task, or kept
// after its key changed is not remembered; a file that does not parse
// remembers nothing.
func TestRememberedOnlyItsOwnEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q")
	r, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	x, y := strings.Repeat("a", 40), strings.Repeat("b", 40)
	m := OpenRemembered(r)
	m.Add("T", x)
	m.Add("U", y)
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(r.CommonDir, "reason", "verified.key")
	if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v", fi, err)
	}
	if got := OpenRemembered(r); !got.Has("T", x) || !got.Has("U", y) || got.Has("T", y) {
		t.Fatalf("read back: T %v, U %v", got.Heads("T"), got.Heads("U"))
	}

	path := filepath.Join(r.CommonDir, "reason", "verified.json")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(string) string{
		"head edited":       func(s string) string { return strings.Replace(s, x, strings.Repeat("c", 40), 1) },
		"moved to a task":   func(s string) string { return strings.Replace(s, `"T"`, `"V"`, 1) },
		"not JSON":          func(s string) string { return s[:len(s)/2] },
		"another version":   func(s string) string { return strings.Replace(s, `"version":1`, `"version":9`, 1) },
		"MAC of the other":  func(s string) string { return swapMACs(t, s) },
		"unchanged control": func(s string) string { return s },
	} {
		if err := os.WriteFile(path, []byte(edit(string(orig))), 0o644); err != nil {
			t.Fatal(err)
		}
		got := OpenRemembered(r)
		total := len(got.Heads("T")) + len(got.Heads("U")) + len(got.Heads("V"))
		switch name {
		case "unchanged control":
			if total != 2 {
				t.Errorf("%s: %d heads remembered, want 2", name, total)
			}
		case "head edited", "moved to a task":
			if total != 1 || got.Has("V", x) || got.Has("T", strings.Repeat("c", 40)) {
				t.Errorf("%s: remembered T %v, U %v, V %v; want only U's own entry", name, got.Heads("T"), got.Heads("U"), got.Heads("V"))
			}
		default:
			if total != 0 {
				t.Errorf("%s: %d heads remembered, want none", name, total)
			}
		}
	}

	// A new key (the old one gone) makes every old entry void.
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(key); err != nil {
		t.Fatal(err)
	}
	if got := OpenRemembered(r); len(got.Heads("T"))+len(got.Heads("U")) != 0 {
		t.Fatalf("with the key gone: T %v, U %v", got.Heads("T"), got.Heads("U"))
	}
	n := OpenRemembered(r)
	n.Add("W", y)
	if err := n.Save(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := OpenRemembered(r); len(got.Heads("T"))+len(got.Heads("U")) != 0 {
		t.Fatalf("entries of the old key under a new one: T %v, U %v", got.Heads("T"), got.Heads("U"))
	}
}

// swapMACs gives each of the file's two entries the other's MAC.
func swapMACs(t *testing.T, s string) string {
	t.Helper()
	i := strings.Index(s, `"mac":"`)
	j := strings.LastIndex(s, `"mac":"`)
	if i < 0 || i == j {
		t.Fatalf("two MACs expected in %s", s)
	}
	a, b := s[i+7:i+7+64], s[j+7:j+7+64]
	return strings.NewReplacer(a, b, b, a).Replace(s)
}
