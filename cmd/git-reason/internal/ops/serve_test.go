package ops_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"git-reason/advisor/transport"
	"git-reason/cmd/git-reason/internal/guard"
	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/cmd/git-reason/internal/serving"
	"git-reason/reliability/harness"
)

// serveOverlay declares two local exec advisors able to reason and
// nothing else, both opted in to answer peers. Every name here is made up.
const serveOverlay = `providers:
  - id: fake_tool
    name: Fake Tool
vendors:
  - id: fakevendor
    name: Fake Vendor
    models:
      - id: fake-model-1
advisors:
  - id: adv-local
    transport: cli
    adapter: exec
    executable: fake-reviewer
    command: [fake-reviewer]
    provider: fake_tool
    vendor: fakevendor
    model: fake-model-1
    capabilities: [reasoning]
    answers_peers: true
  - id: adv-second
    transport: cli
    adapter: exec
    executable: fake-second
    command: [fake-second]
    provider: fake_tool
    vendor: fakevendor
    model: fake-model-1
    capabilities: [reasoning]
    answers_peers: true
`

// servePeers opens a fresh repository whose user overlay declares
// serveOverlay, with fake reviewers on PATH that log their names every
// time they are asked (adv-local answers, adv-second answers unless the
// file "second-fails" exists beside the log, then it fails), and serves its
// peer handler on loopback. It returns the server's URL and the path of
// the log.
func servePeers(t *testing.T) (string, string) {
	t.Helper()
	return servePeersWith(t, serveOverlay)
}

// servePeersWith is servePeers with another user overlay.
func servePeersWith(t *testing.T, overlay string) (string, string) {
	t.Helper()
	sess, asked := peerSession(t, overlay, 0)
	srv := httptest.NewServer(serving.PeerHandler(sess))
	t.Cleanup(srv.Close)
	return srv.URL, asked
}

// peerSession is the session servePeersWith serves, on a repository
// holding tasks tasks (harness.BulkTasks, named T-000000 on), and the
// path of its fake reviewers' log.
func peerSession(t testing.TB, overlay string, tasks int) (*ops.Session, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake advisor is a shell script")
	}
	root := t.TempDir()
	home, bin, repo := filepath.Join(root, "home"), filepath.Join(root, "bin"), filepath.Join(root, "repo")
	asked := filepath.Join(root, "asked.log")
	for _, d := range []string{filepath.Join(home, ".config", "git-reason"), bin, repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(home, ".config", "git-reason", "advisors.yaml"): overlay,
		filepath.Join(bin, "fake-reviewer"): "#!/bin/sh\ncat >/dev/null\n[ -e '" + root + "/first-fails' ] && exit 1\necho asked adv-local >> '" + asked + "'\n" +
			`echo '{"stance":"endorse","summary":"fine by me","confidence":0.6}'` + "\n",
		filepath.Join(bin, "fake-second"): "#!/bin/sh\ncat >/dev/null\necho asked adv-second >> '" + asked + "'\n" +
			`echo '{"stance":"oppose","summary":"not so","confidence":0.6}'` + "\n",
	}
	for p, data := range files {
		if err := os.WriteFile(p, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"XDG_CONFIG_HOME", "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
	for k, v := range map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1",
		"PATH": bin + string(os.PathListSeparator) + os.Getenv("PATH"), "CI": "", "GIT_REASON_PROFILE": "",
		"GIT_REASON_DISABLE": "", "GIT_AUTHOR_NAME": "Ada Tester", "GIT_AUTHOR_EMAIL": "ada@example.invalid",
		"GIT_CEILING_DIRECTORIES": root} {
		t.Setenv(k, v)
	}
	harness.Git(t, repo, "init", "-q")
	if tasks > 0 {
		if err := harness.BulkTasks(context.Background(), repo, "T-", tasks); err != nil {
			t.Fatal(err)
		}
	}
	sess, err := ops.Open(context.Background(), ops.Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	return sess, asked
}

func review(t *testing.T, url string, needs ...string) []transport.PeerAnswer {
	t.Helper()
	return reviewNamed(t, url, "", needs...)
}

// reviewNamed asks the peer at url, naming the advisor to ask there.
func reviewNamed(t *testing.T, url, name string, needs ...string) []transport.PeerAnswer {
	t.Helper()
	return reviewResponse(t, url, name, needs...).Answers
}

// reviewResponse is reviewNamed's whole response.
func reviewResponse(t *testing.T, url, name string, needs ...string) transport.PeerResponse {
	t.Helper()
	body, _ := json.Marshal(transport.PeerRequest{Request: transport.Request{Subject: "queue", Question: "keep it?", Needs: needs}, Advisor: name})
	resp, err := http.Post(url+transport.PeerPath, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out transport.PeerResponse
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil {
		t.Fatalf("review: status %d", resp.StatusCode)
	}
	return out
}

// An exec advisor runs a command on this machine, which a peer's question
// could ask to read its files: without answers_peers in its declaration
// no peer's question reaches it, and the answer says why in one line.
func TestServeAsksNoExecAdvisorNotOptedIn(t *testing.T) {
	url, asked := servePeersWith(t, string(bytes.ReplaceAll([]byte(serveOverlay), []byte("    answers_peers: true\n"), nil)))
	for _, name := range []string{"", "adv-local"} {
		got := reviewResponse(t, url, name, "reasoning")
		if name == "" && (len(got.Answers) != 0 || got.Note != transport.PeerNoAdvisorMay) {
			t.Errorf("not opted in: %+v, want no answer and the note %q", got, transport.PeerNoAdvisorMay)
		}
		if name != "" && (len(got.Answers) != 1 || got.Answers[0].Status != transport.PeerFailed) {
			t.Errorf("not opted in, named %s: %+v, want one unavailable answer", name, got)
		}
	}
	if data, err := os.ReadFile(asked); err == nil {
		t.Errorf("an exec advisor not opted in was asked a peer's question: %q", data)
	}
}

// Serve selects advisors as policy does: a request needing a capability no
// available advisor has asks nobody, and one needing what the advisor has
// asks it.
func TestServeSelectsByPolicyCapabilities(t *testing.T) {
	url, asked := servePeers(t)
	if got := review(t, url, "security_review"); len(got) != 0 {
		t.Errorf("a request needing security_review got %d answers; policy selects no advisor for it", len(got))
	}
	if got := review(t, url, "reasoning", "security_review"); len(got) != 0 {
		t.Errorf("a request needing reasoning and security_review got %d answers; every needed capability is required", len(got))
	}
	if data, err := os.ReadFile(asked); err == nil {
		t.Fatalf("the advisor was asked for a capability it lacks: %q", data)
	}
	got := review(t, url, "reasoning")
	if len(got) != 1 || got[0].Advisor != "advisor-1" || got[0].Status != transport.PeerCompleted || got[0].Model == nil {
		t.Fatalf("a request needing reasoning: %+v, want the completed answer of its first advisor, named by position", got)
	}
	if data, _ := os.ReadFile(asked); string(data) != "asked adv-local\n" {
		t.Errorf("asked %q, want adv-local once (and adv-second never: one answer is kept)", data)
	}
}

// A peer asks one advisor for one kept answer: the first available; the
// next only when it fails; the one the request names when it names one,
// and nobody when it names one policy would not ask.
func TestServeAsksOneAdvisor(t *testing.T) {
	url, asked := servePeers(t)
	askedNow := func() string {
		data, _ := os.ReadFile(asked)
		os.Remove(asked)
		return string(data)
	}
	got := reviewNamed(t, url, "adv-second", "reasoning")
	if len(got) != 1 || got[0].Status != transport.PeerCompleted || got[0].Conclusion == nil || got[0].Conclusion.Stance != "oppose" {
		t.Fatalf("named adv-second: %+v, want its answer alone", got)
	}
	if a := askedNow(); a != "asked adv-second\n" {
		t.Errorf("named adv-second, asked %q", a)
	}
	for _, name := range []string{"adv-unknown", "adv-second"} {
		needs := []string{"reasoning"}
		if name == "adv-second" {
			needs = []string{"security_review"} // a need it lacks
		}
		got = reviewNamed(t, url, name, needs...)
		if len(got) != 1 || got[0].Status != transport.PeerFailed || got[0].Failure == nil || got[0].Failure.Kind != string(transport.Unavailable) {
			t.Errorf("named %s for %v: %+v, want one unavailable answer", name, needs, got)
		}
		if a := askedNow(); a != "" {
			t.Errorf("named %s for %v, asked %q, want nobody", name, needs, a)
		}
	}
	// The first fails: the second is asked, and only then.
	if err := os.WriteFile(filepath.Join(filepath.Dir(asked), "first-fails"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got = review(t, url, "reasoning")
	if len(got) != 2 || got[0].Status != transport.PeerFailed || got[1].Status != transport.PeerCompleted || got[1].Advisor != "advisor-2" {
		t.Fatalf("first failing: %+v, want a failure then the second's answer", got)
	}
	if a := askedNow(); a != "asked adv-second\n" {
		t.Errorf("first failing, asked %q, want adv-second once", a)
	}
}

// FuzzServe drives serve's whole handler chain (the guard as Peers
// configures it, then the review endpoint, with two local advisors that
// answer peers), in front of a repository of three tasks, with any
// request: any method, target, Host, Origin, Content-Type,
// Content-Length, header and body, with the token, a wrong one, one after
// another scheme or none (cred%4). No request makes it panic, hang or
// answer a server error, or says the token back; one without the token
// sees nothing of the repository and writes nothing to it.
func FuzzServe(f *testing.F) {
	sess, _ := peerSession(f, serveOverlay, 3)
	const token = "serve-token-0123456789abcdef"
	h := guard.Wrap(guard.Config{Token: token, MaxBody: transport.PeerRequestLimit, AllowHosts: []string{"reason.example"},
		AllowOrigins: []string{"https://allowed.example"}}, serving.PeerHandler(sess))
	g := harness.Guarded{Handler: h, GitDir: sess.Repo.GitDir, Token: token, Content: []string{"bulk subject", "which way for", "T-000"}}
	for _, body := range []string{`{"request":{"subject":"queue","question":"keep it?"}}`,
		`{"request":{"subject":"queue","question":"keep it?","needs":["reasoning"],"evidence":["a.go"],"material":"x"},"advisor":"adv-second"}`,
		`{"request":{"subject":"T-000001","question":"which way for 1?"},"advisor":"nobody"}`, `{}`, `[]`, `{"request":{"subject":1}}`} {
		for cred := range uint8(4) {
			f.Add("POST", transport.PeerPath, "127.0.0.1:7411", "", "application/json", int64(len(body)), "", "", []byte(body), cred)
		}
	}
	f.Add("OPTIONS", transport.PeerPath, "reason.example", "https://allowed.example", "", int64(-1), "Access-Control-Request-Method", "POST", []byte(nil), uint8(0))
	f.Add("GET", "/", "localhost", "http://evil.example", "text/plain", int64(3), "Accept", "*/*", []byte("abc"), uint8(1))
	f.Fuzz(func(t *testing.T, method, target, host, origin, ctype string, length int64, header, value string, body []byte, cred uint8) {
		s := harness.Stranger{Method: method, Target: target, Host: host, Origin: origin, ContentType: ctype,
			Length: length, Header: header, Value: value, Body: body}
		auth := [...]string{"", "Bearer " + token, "Bearer " + strings.ToUpper(token), "bearer " + token}[cred%4]
		if r, ok := s.Request(context.Background(), auth); ok {
			g.Try(t, s, r, cred%4 == 1)
		}
	})
}
