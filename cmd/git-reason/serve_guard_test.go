package main

// serve is safe on a laptop: the attacks a web page or another local
// process can make on 'git reason serve', each through the real binary
// started by git's own dispatch. On the code before the guard, a text/plain
// POST from any page, with a foreign Host and no token, got both advisors'
// answers, their ids and their errors.

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

// guardOverlay is the user's own overlay: one advisor that answers after
// a pause (so requests overlap) and one that fails, printing an address
// and an error a caller must not learn. Neither declares a model, nor
// does the answer report one: the model a record would name is then
// "advisor ID", which must not reach the caller either. The answering
// one takes questions of at most guardBudget bytes.
var guardOverlay = "advisors:\n" + cliAdvisor("adv-secret-answering", "fake-guard-ok", "answers_peers: true", "context_bytes: "+strconv.Itoa(guardBudget)) + cliAdvisor("adv-secret-failing", "fake-guard-fail", "answers_peers: true") +
	"order: [adv-secret-failing, adv-secret-answering]\n"

const guardBudget = 8192

type served struct {
	t      *testing.T
	url    string
	stderr *syncBuffer
	cmd    *exec.Cmd
	client *http.Client
}

type syncBuffer = harness.SyncBuffer

// startServe runs 'git reason serve' in a fresh repository with args and
// returns once it listens.
func startServe(t *testing.T, env []string, repo string, args ...string) *served {
	t.Helper()
	cmd := exec.Command("git", append([]string{"reason", "serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Dir, cmd.Env = repo, env
	s := &served{t: t, stderr: &syncBuffer{}, cmd: cmd, client: &http.Client{Timeout: 30 * time.Second}}
	s.url = startListening(t, cmd, s.stderr, `serving reviews on (\S+)`)
	return s
}

// startListening starts cmd with its stderr copied into stderr and returns
// the first submatch of pattern in a line of it: where the server listens.
// The server stops when the test ends (Ctrl-C, then a kill after 10
// seconds); the test fails when no such line comes within a minute.
func startListening(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer, pattern string) string {
	t.Helper()
	pr, pw := io.Pipe()
	cmd.Stderr = io.MultiWriter(stderr, pw)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pw.Close() }) // after the process is gone
	harness.StopAtCleanup(t, cmd)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		re := regexp.MustCompile(pattern)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case url := <-found:
		return url
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not start: %s", strings.Join(cmd.Args, " "), stderr.String())
	}
	return ""
}

// post sends a review request and returns the status, headers and body.
func (s *served) post(headers map[string]string, body string) (int, http.Header, string) {
	s.t.Helper()
	return postHTTP(s.t, s.client, s.url, headers, body)
}

// postHTTP posts body to url with headers ("Host" sets the Host header)
// and returns the status, the response's headers and its body; it fails
// the test when the request cannot be made or sent.
func postHTTP(t *testing.T, client *http.Client, url string, headers map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(data)
}

const reviewBody = `{"request": {"subject": "queue", "question": "Keep the queue in the database?", "needs": ["reasoning"]}}`

func TestServeGuard(t *testing.T) {
	t.Parallel()
	self := sandboxPossible(t)
	root := t.TempDir()
	home, bin, repo := filepath.Join(root, "home"), filepath.Join(root, "bin"), filepath.Join(root, "repo")
	asked := filepath.Join(root, "asked")
	// The answering advisor holds its answer while the file hold exists,
	// so that the test can keep a request in flight exactly as long as it
	// needs (60 s at most).
	hold := filepath.Join(root, "hold")
	for p, data := range map[string]string{
		filepath.Join(home, ".gitconfig"):                             "[user]\n\tname = Ada Tester\n\temail = ada@example.invalid\n",
		filepath.Join(home, ".config", "git-reason", "advisors.yaml"): guardOverlay,
		filepath.Join(bin, "fake-guard-ok"): "#!/bin/sh\nn=$(wc -c)\necho asked $n >> '" + asked + "'\n" +
			"i=0; while [ -e '" + hold + "' ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\n" +
			`echo '{"stance":"endorse","summary":"fine by me","confidence":0.6}'` + "\n",
		filepath.Join(bin, "fake-guard-fail"): "#!/bin/sh\ncat >/dev/null\necho 'cannot reach https://internal.secret-host.example/v1: connection refused' >&2\nexit 1\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{
		"PATH=" + strings.Join([]string{filepath.Dir(self), bin, os.Getenv("PATH")}, string(os.PathListSeparator)),
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CEILING_DIRECTORIES=" + root, "LC_ALL=C", "GIT_REASON_PEER_TOKEN=",
	}
	harness.Git(t, "", "init", "-q", repo)

	// The attack: a web page's simple POST, foreign Host, no token.
	s := startServe(t, env, repo)
	if code, _, body := s.post(map[string]string{"Content-Type": "text/plain", "Host": "attacker.example:7411", "Origin": "http://attacker.example"}, reviewBody); code == http.StatusOK || strings.Contains(body, "fine by me") {
		t.Errorf("a web page's text/plain POST was answered: %d %s", code, body)
	}

	// No token configured: serve generated one, says where, keeps it 0600.
	tokenPath := filepath.Join(repo, ".git", "reason", "serve-token")
	token := generatedToken(t, "serve", s.stderr.String(), tokenPath)
	with := withHeader(token)
	good := with("Authorization", "Bearer "+token)

	for name, c := range guardAttacks(token, "7411") {
		if code, _, body := s.post(c.headers, reviewBody); code != c.want || strings.Contains(body, "fine by me") {
			t.Errorf("%s: %d %s, want %d", name, code, body, c.want)
		}
	}
	if _, err := os.Stat(asked); err == nil {
		t.Fatalf("a refused request reached an advisor")
	}

	// The right request is answered, with no advisor id, address or error.
	code, _, body := s.post(good, reviewBody)
	if code != http.StatusOK || !strings.Contains(body, "fine by me") {
		t.Fatalf("the right request: %d %s", code, body)
	}
	for _, secret := range []string{"adv-secret", "secret-host", "connection refused", "https://"} {
		if strings.Contains(body, secret) {
			t.Errorf("the answer reveals %q: %s", secret, body)
		}
	}
	var resp struct {
		Answers []struct{ Advisor, Status string }
	}
	// The failing advisor is first: the peer asks it, then the next.
	if err := json.Unmarshal([]byte(body), &resp); err != nil || len(resp.Answers) != 2 || resp.Answers[0].Status != "failed" || resp.Answers[1].Status != "completed" {
		t.Errorf("answers: %v %s, want one failed and then one completed", err, body)
	}

	// A question over 64 KiB is refused before any advisor is asked.
	before, _ := os.ReadFile(asked)
	big := `{"request": {"subject": "s", "question": "` + strings.Repeat("q", 70<<10) + `", "needs": ["reasoning"]}}`
	if code, _, _ := s.post(good, big); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a 70 KiB question: %d, want 413", code)
	}
	if after, _ := os.ReadFile(asked); len(after) != len(before) {
		t.Errorf("a refused question reached an advisor")
	}
	// A request carrying material within the asking side's default budget
	// for a peer (400 KB, share/context.yaml) is answered: the guard in
	// front of the endpoint took 128 KiB, and every consult of a peer with
	// more material failed as 413, "unavailable".
	withMaterial := `{"request": {"subject": "s", "question": "Keep the queue?", "needs": ["reasoning"], "material": "` + strings.Repeat("m", 390_000) + `"}}`
	if code, _, body := s.post(good, withMaterial); code != http.StatusOK || !strings.Contains(body, "fine by me") {
		t.Errorf("a request with 390 KB of material: %d %.200s", code, body)
	}
	// The peer chose that material, not this user: the advisor got its
	// own budget's worth (the whole 390 KB before, each request).
	if got := lastAsked(t, asked); got > guardBudget {
		t.Errorf("a peer's material past the advisor's budget of %d bytes: it was sent %d", guardBudget, got)
	}
	// Summaries past the budget leave no room for material: not asked.
	before, _ = os.ReadFile(asked)
	wide := `{"request": {"subject": "s", "question": "Keep the queue?", "needs": ["reasoning"], "evidence": ["` + strings.Repeat("e", guardBudget) + `"]}}`
	if code, _, body := s.post(good, wide); code != http.StatusOK || strings.Contains(body, "fine by me") {
		t.Errorf("a request whose summaries exceed the budget: %d %.200s", code, body)
	}
	if after, _ := os.ReadFile(asked); len(after) != len(before) {
		t.Errorf("summaries past the budget reached the advisor")
	}

	// At most one in flight (--max-inflight 1): the second gets 503 and
	// Retry-After while the first is answered.
	_ = s.cmd.Process.Signal(os.Interrupt)
	_ = s.cmd.Wait()
	s = startServe(t, env, repo, "--max-inflight", "1")
	if err := os.WriteFile(hold, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ = os.ReadFile(asked)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if code, _, _ := s.post(good, reviewBody); code != http.StatusOK {
			t.Errorf("the first of two concurrent requests: %d", code)
		}
	}()
	// The first request is in flight once its advisor has been asked.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if now, _ := os.ReadFile(asked); len(now) > len(before) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first request never reached its advisor")
		}
	}
	code, hdr, _ := s.post(good, reviewBody)
	if err := os.Remove(hold); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if code != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" {
		t.Errorf("a request past --max-inflight: %d Retry-After %q, want 503 with Retry-After", code, hdr.Get("Retry-After"))
	}

	// An allowed host and origin are accepted; a restart keeps the token.
	_ = s.cmd.Process.Signal(os.Interrupt)
	_ = s.cmd.Wait()
	s = startServe(t, env, repo, "--allow-host", "reviews.example", "--allow-origin", "https://reviews.example")
	if !strings.Contains(s.stderr.String(), "token kept in "+tokenPath) {
		t.Errorf("a second serve does not reuse the token: %s", s.stderr.String())
	}
	if code, _, _ := s.post(with("Host", "reviews.example:7411"), reviewBody); code != http.StatusOK {
		t.Errorf("an allowed host: %d", code)
	}
	if code, _, _ := s.post(with("Origin", "https://reviews.example"), reviewBody); code != http.StatusOK {
		t.Errorf("an allowed origin: %d", code)
	}

	// TLS: with a certificate, serve speaks HTTPS only.
	cert, key := selfSigned(t, root)
	s = startServe(t, env, repo, "--tls-cert", cert, "--tls-key", key)
	if !strings.HasPrefix(s.url, "https://") {
		t.Fatalf("serve with TLS listens on %s", s.url)
	}
	pool := x509.NewCertPool()
	pemData, _ := os.ReadFile(cert)
	pool.AppendCertsFromPEM(pemData)
	s.client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if code, _, body := s.post(good, reviewBody); code != http.StatusOK {
		t.Errorf("over TLS: %d %s", code, body)
	}
}

// lastAsked is how many bytes of question the answering advisor read the
// last time it was asked (its line "asked N" in the file asked).
func lastAsked(t *testing.T, asked string) int {
	t.Helper()
	data, _ := os.ReadFile(asked)
	lines := strings.Fields(strings.ReplaceAll(string(data), "asked", ""))
	if len(lines) == 0 {
		t.Fatal("the answering advisor was never asked")
	}
	n, err := strconv.Atoi(lines[len(lines)-1])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T, dir string) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "git reason test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, keyPath
}

// withHeader returns a builder of request headers: a good request's (the
// bearer token and a JSON body) with one header set to v, or removed when
// v is empty.
func withHeader(token string) func(k, v string) map[string]string {
	return func(k, v string) map[string]string {
		h := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"}
		if v == "" {
			delete(h, k)
		} else {
			h[k] = v
		}
		return h
	}
}

// guardAttack is one forged request and the status the guard must answer.
type guardAttack struct {
	headers map[string]string
	want    int
}

// guardAttacks are the requests every guarded server (serve, mcp --http)
// refuses, by name: a missing or wrong token, a body a page can send
// without a preflight, a rebound Host, a browser's Origin.
func guardAttacks(token, port string) map[string]guardAttack {
	with := withHeader(token)
	return map[string]guardAttack{
		"no token":              {with("Authorization", ""), http.StatusUnauthorized},
		"wrong token":           {with("Authorization", "Bearer "+strings.Repeat("0", len(token))), http.StatusUnauthorized},
		"token not as Bearer":   {with("Authorization", "Basic "+token), http.StatusUnauthorized},
		"text/plain":            {with("Content-Type", "text/plain"), http.StatusUnsupportedMediaType},
		"no content type":       {with("Content-Type", ""), http.StatusUnsupportedMediaType},
		"rebound host":          {with("Host", "attacker.example:"+port), http.StatusForbidden},
		"rebound host, no port": {with("Host", "attacker.example"), http.StatusForbidden},
		"browser origin":        {with("Origin", "http://attacker.example"), http.StatusForbidden},
		"null origin":           {with("Origin", "null"), http.StatusForbidden},
	}
}

// generatedToken holds the token a server (who: serve, mcp --http) made
// because none was configured: its stderr says where the token is kept
// and never the token itself, and the file at path is 0600. It returns
// the token.
func generatedToken(t *testing.T, who, stderr, path string) string {
	t.Helper()
	if !strings.Contains(stderr, "token generated in "+path) || !strings.Contains(stderr, "cat "+path) {
		t.Errorf("%s does not say where its token is: %s", who, stderr)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v, want mode 0600", fi, err)
	}
	data, _ := os.ReadFile(path)
	token := strings.TrimSpace(string(data))
	if strings.Contains(stderr, token) {
		t.Errorf("%s printed the token itself", who)
	}
	return token
}
