package main

// The Reasoning page's token stays out of every argument vector and every
// redirect off this origin: 'git reason web --open' hands the browser a
// one-time code, and the redirect that drops a token or code from the
// address leads only to a path of this server.

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestWebOpenHandsNoToken: the browser's command line (any local user
// reads it in the process list) holds a one-time code, not the token; the
// code opens the page once and is refused the second time.
func TestWebOpenHandsNoToken(t *testing.T) {
	t.Parallel()
	s := webRepo(t)
	dir := t.TempDir()
	argvFile, browser := filepath.Join(dir, "argv"), filepath.Join(dir, "browser")
	// The browser records its arguments, one a line, then signals it has.
	script := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' \"$@\" > %q.tmp && mv %q.tmp %q\n", argvFile, argvFile, argvFile)
	if err := os.WriteFile(browser, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s.env = append(s.env, "BROWSER="+browser)
	start, base := startWeb(t, s, "--open")
	token := start[strings.Index(start, "?token=")+len("?token="):]

	var argv []string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(argvFile); err == nil {
			argv = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("git reason web --open started no $BROWSER within a minute")
		}
	}
	if strings.Contains(strings.Join(argv, " "), token) {
		t.Fatalf("the browser's command line holds the token: %q", argv)
	}
	m := regexp.MustCompile(`^` + regexp.QuoteMeta(base) + `/\?code=([0-9a-f]{64})$`).FindStringSubmatch(strings.Join(argv, " "))
	if m == nil {
		t.Fatalf("the browser was handed %q, want one address on %s with a one-time code", argv, base)
	}
	once := argv[0]

	// First use: the code becomes the cookie and the page shows.
	c := webClient()
	if p := getPage(t, c, once); !strings.Contains(p, `href="/task/T-1"`) {
		t.Errorf("the one-time address did not open the task list")
	}
	if p := getPage(t, c, base+"/task/T-2"); !strings.Contains(p, "Rename the flag") {
		t.Errorf("the cookie the code set does not open a task page")
	}
	// Second use, from anywhere: refused, and no cookie is set.
	for i := 0; i < 2; i++ {
		res, err := http.Get(once)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden || res.Header.Get("Set-Cookie") != "" {
			t.Fatalf("the one-time address used again: status %d, Set-Cookie %q; want 403 and none", res.StatusCode, res.Header.Get("Set-Cookie"))
		}
	}
}

// TestWebRedirectStaysLocal: 'GET //evil.example/x?token=T' and its
// spellings are answered with a redirect to a path of this server, never
// to the host named in the request target.
func TestWebRedirectStaysLocal(t *testing.T) {
	t.Parallel()
	s := webRepo(t)
	start, _ := startWeb(t, s)
	u, err := url.Parse(start)
	if err != nil {
		t.Fatal(err)
	}
	token := u.Query().Get("token")
	for _, target := range []string{"//evil.example/x", "//evil.example", "///evil.example/x", `/\evil.example/x`,
		`/\/evil.example`, "/%2F%2Fevil.example/x", "/%2F/evil.example", "/%5Cevil.example", "/..//evil.example",
		"/./%2F%2Fevil.example", "/%09/evil.example", "/task/T-1/..//evil.example", "//evil.example/x?a=b&"} {
		sep := "?"
		if strings.Contains(target, "?") {
			sep = ""
		}
		status, loc := rawGet(t, u.Host, target+sep+"token="+token)
		if status != http.StatusSeeOther || !sameOrigin(loc) {
			t.Errorf("GET %s: %d, Location %q: want 303 to a path of this server", target+sep+"token=…", status, loc)
		}
	}
}

// TestWebTwoPages: the Reasoning pages of two repositories, served at
// once on two ports, are both readable in one browser. A browser sends a
// host's cookies to all its ports, and the two pages' tokens shared one
// cookie name: opening the second page logged the first one out (403 on
// its pages and on what they poll).
func TestWebTwoPages(t *testing.T) {
	t.Parallel()
	first, second := webRepo(t), webRepo(t)
	start1, base1 := startWeb(t, first)
	start2, base2 := startWeb(t, second)
	c := webClient() // one cookie jar, as one browser
	getPage(t, c, start1)
	getPage(t, c, start2)
	for _, u := range []string{base1 + "/", base1 + "/head", base2 + "/", base2 + "/head", base1 + "/task/T-1"} {
		getPage(t, c, u)
	}
	// The names are the servers' own, never their tokens.
	u1, err1 := url.Parse(start1)
	u2, err2 := url.Parse(start2)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	for _, ck := range c.Jar.Cookies(u1) {
		if strings.Contains(ck.Name, u1.Query().Get("token")) || strings.Contains(ck.Name, u2.Query().Get("token")) {
			t.Errorf("a cookie is named with a token: %s", ck.Name)
		}
	}
}

// rawGet sends a GET with the request target exactly as given (a client
// library would clean it) and returns the status and Location.
func rawGet(t *testing.T, host, target string) (int, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, host); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Location")
}

// sameOrigin reports whether a browser sent to loc stays on this server:
// loc is a path, and not one a browser reads as naming a host (it drops
// tabs and line breaks, reads a backslash as a slash, and skips any
// number of slashes after a scheme-relative "//").
func sameOrigin(loc string) bool {
	loc = strings.NewReplacer("\t", "", "\n", "", "\r", "", `\`, "/").Replace(loc)
	return strings.HasPrefix(loc, "/") && !strings.HasPrefix(loc, "//")
}
