package ops

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTrustStore(t *testing.T) {
	s := TrustStore{Path: filepath.Join(t.TempDir(), "cfg", "git-reason", "trusted.json")}
	if ok, err := s.Trusted("/r", "aa"); ok || err != nil {
		t.Fatalf("empty store: %v %v", ok, err)
	}
	for _, e := range []TrustEntry{{Repository: "/r", SHA256: "aa"}, {Repository: "/q", SHA256: "cc"}, {Repository: "/r", SHA256: "bb"}} {
		if err := s.Trust(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		repo, sum string
		want      bool
	}{{"/r", "bb", true}, {"/r", "aa", false}, {"/q", "cc", true}, {"/q", "bb", false}} {
		if ok, err := s.Trusted(c.repo, c.sum); ok != c.want || err != nil {
			t.Errorf("Trusted(%s, %s) = %v %v, want %v", c.repo, c.sum, ok, err, c.want)
		}
	}
	if fi, err := os.Stat(s.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("trust file mode %v (%v), want 0600", fi.Mode(), err)
	}
	if ok, err := s.Revoke("/r"); !ok || err != nil {
		t.Errorf("Revoke = %v %v", ok, err)
	}
	if ok, _ := s.Trusted("/r", "bb"); ok {
		t.Errorf("a revoked repository is still trusted")
	}
	if ok, err := s.Revoke("/r"); ok || err != nil {
		t.Errorf("second Revoke = %v %v, want false", ok, err)
	}
}
