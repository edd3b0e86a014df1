package advisor

import (
	"os"
	"path/filepath"
	"testing"
)

// The endpoint names scheme, host and port, never a path, query, fragment
// or credential.
func TestURLEndpoint(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://api.example.test/v1", "https://api.example.test:443"},
		{"http://127.0.0.1:8080/v1/chat?key=secret#frag", "http://127.0.0.1:8080"},
		{"https://user:hunter2@evil.example.test:8443/v1?token=abc", "https://evil.example.test:8443"},
		{"HTTPS://API.Example.Test", "https://api.example.test:443"},
		{"http://[::1]:9000/x", "http://[::1]:9000"},
		{"not a url", ""},
		{"/relative/path", ""},
	} {
		if got := URLEndpoint(c.in); got != c.want {
			t.Errorf("URLEndpoint(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// An exec advisor's endpoint is the executable found on PATH.
func TestEndpointExec(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "fake-tool")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	d := Declaration{ID: "x", Transport: "cli", Adapter: "exec", Command: []string{"fake-tool", "--flag"}}
	if got := Endpoint(d); got != exe {
		t.Fatalf("Endpoint = %q, want %q", got, exe)
	}
	p := Declaration{ID: "p", Transport: "peer", Adapter: "peer", BaseURL: "https://peer.example.test:7000/review?x=1"}
	if got := Endpoint(p); got != "https://peer.example.test:7000" {
		t.Fatalf("peer Endpoint = %q", got)
	}
}
