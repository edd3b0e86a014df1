package guard

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"git-reason/reliability/harness"
)

// A method named in NoBody passes without a Content-Type only when it
// carries no body; every other check still applies, and other methods
// still need application/json.
func TestNoBodyMethods(t *testing.T) {
	const token = testToken
	reached := 0
	h := Wrap(Config{Token: token, NoBody: []string{http.MethodGet, http.MethodDelete}},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached++ }))
	for _, c := range []struct {
		name, method, body, ctype, auth, host string
		want                                  int
	}{
		{"GET, no body", "GET", "", "", "Bearer " + token, "127.0.0.1:9", http.StatusOK},
		{"DELETE, no body", "DELETE", "", "", "Bearer " + token, "localhost:9", http.StatusOK},
		{"DELETE with a body", "DELETE", "x", "", "Bearer " + token, "127.0.0.1:9", http.StatusUnsupportedMediaType},
		{"DELETE with a text body", "DELETE", "x", "text/plain", "Bearer " + token, "127.0.0.1:9", http.StatusUnsupportedMediaType},
		{"GET without the token", "GET", "", "", "", "127.0.0.1:9", http.StatusUnauthorized},
		{"GET from a rebound name", "GET", "", "", "Bearer " + token, "attacker.example", http.StatusForbidden},
		{"POST without a content type", "POST", "{}", "", "Bearer " + token, "127.0.0.1:9", http.StatusUnsupportedMediaType},
		{"PUT without a content type", "PUT", "", "", "Bearer " + token, "127.0.0.1:9", http.StatusUnsupportedMediaType},
		{"POST as JSON", "POST", "{}", "application/json", "Bearer " + token, "127.0.0.1:9", http.StatusOK},
	} {
		var body *strings.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
		}
		var r *http.Request
		if body != nil {
			r = httptest.NewRequest(c.method, "/", body)
		} else {
			r = httptest.NewRequest(c.method, "/", nil)
		}
		r.Host = c.host
		if c.ctype != "" {
			r.Header.Set("Content-Type", c.ctype)
		}
		if c.auth != "" {
			r.Header.Set("Authorization", c.auth)
		}
		before := reached
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.want {
			t.Errorf("%s: %d, want %d", c.name, w.Code, c.want)
		}
		if passed := reached > before; passed != (c.want == http.StatusOK) {
			t.Errorf("%s: reached the handler: %v", c.name, passed)
		}
	}
}

// A token file that is not a regular file is refused with what to do,
// and a symbolic link is not followed: its open's own error ("too many
// levels of symbolic links") said neither.
func TestTokenFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte(strings.Repeat("0", 64)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "serve-token")
	if err := os.Symlink(target, link); err != nil {
		harness.MissingTool(t, "no symbolic links here: "+err.Error())
	}
	sub := filepath.Join(dir, "token-dir")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		link: "the token file " + link + " is a symbolic link, not a regular file: remove it and serve again",
		sub:  "the token file " + sub + " is not a regular file: remove it and serve again",
	} {
		if token, _, err := LoadOrCreateToken(path); err == nil || err.Error() != want {
			t.Errorf("LoadOrCreateToken(%s) = %q, %v; want the error %q", path, token, err, want)
		}
	}
}

// A token from the variable is held to the token file's minimum: a short
// one, which a client could guess, was taken as it was.
func TestTokenMinimumLength(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "serve-token")
	t.Setenv("GUARD_TEST_TOKEN", "peer-token-91d0")
	want := "$GUARD_TEST_TOKEN holds a token of 15 characters: give one of at least 16 (or unset it, and a token is generated in " + path + ")"
	if token, _, err := Token("GUARD_TEST_TOKEN", path, "peers"); err == nil || err.Error() != want {
		t.Errorf("a 15-character token from the variable: %q, %v; want the error %q", token, err, want)
	}
	t.Setenv("GUARD_TEST_TOKEN", "peer-token-91d0x")
	if token, _, err := Token("GUARD_TEST_TOKEN", path, "peers"); err != nil || token != "peer-token-91d0x" {
		t.Errorf("a 16-character token from the variable: %q, %v", token, err)
	}
	if err := os.WriteFile(path, []byte("peer-token-91d0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GUARD_TEST_TOKEN", "")
	if _, _, err := Token("GUARD_TEST_TOKEN", path, "peers"); err == nil || !strings.Contains(err.Error(), "holds no usable token") {
		t.Errorf("a 15-character token file: %v, want it refused", err)
	}
}
