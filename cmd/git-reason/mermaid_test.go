package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
	"git-reason/reliability/harness"
)

// Every Mermaid diagram the tests produce is checked by Mermaid's own
// parser, the one a forge's renderer runs: testdata/mermaid holds a pinned
// package.json and check.mjs, which the tests install once into the
// user's cache directory (npm, Node 18 or later). Where that cannot be
// done (no node or npm, no registry), the check skips and says why.

// mermaidChecker installs the checker once per test process.
var mermaidChecker = sync.OnceValues(installMermaid)

// installMermaid returns the path of check.mjs, written beside its
// node_modules, installing them when missing, or why it cannot.
func installMermaid() (string, error) {
	pkg, err := os.ReadFile(filepath.Join("testdata", "mermaid", "package.json"))
	if err != nil {
		return "", err
	}
	script, err := os.ReadFile(filepath.Join("testdata", "mermaid", "check.mjs"))
	if err != nil {
		return "", err
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("%s is not on PATH", tool)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(pkg)
	dir := filepath.Join(cache, "git-reason-test", "mermaid-"+hex.EncodeToString(sum[:6]))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "mermaid", "package.json")); err != nil {
		// Install beside it and rename into place: a concurrent test
		// process never sees half an installation.
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return "", err
		}
		tmp, err := os.MkdirTemp(filepath.Dir(dir), ".install-*")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		if err := os.WriteFile(filepath.Join(tmp, "package.json"), pkg, 0o644); err != nil {
			return "", err
		}
		cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--no-package-lock", "--omit=dev", "--loglevel=error")
		cmd.Dir = tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("npm install of the pinned mermaid failed: %v: %s", err, lastLine(string(out)))
		}
		if err := os.Rename(tmp, dir); err != nil && !exists(filepath.Join(dir, "node_modules")) {
			return "", err
		}
	}
	// The script is written each time (it is small) under a name of its
	// own content: the installation is keyed by package.json only, and
	// test processes of other trees may run another script beside it.
	ssum := sha256.Sum256(script)
	name := filepath.Join(dir, "check-"+hex.EncodeToString(ssum[:6])+".mjs")
	f, err := os.CreateTemp(dir, ".check-*.mjs")
	if err != nil {
		return "", err
	}
	_, werr := f.Write(script)
	if err := errorsJoin(werr, f.Close(), os.Rename(f.Name(), name)); err != nil {
		return "", err
	}
	return name, nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func errorsJoin(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

type diagram struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// checkMermaid parses the diagrams; it returns the checker's report and
// whether every diagram parsed, or skip set to why nothing was checked.
// One checker process serves every call of the test process, one call at
// a time (mermaidServer).
func checkMermaid(diagrams []diagram) (report string, ok bool, skip string) {
	script, err := mermaidChecker()
	if err != nil {
		return "", false, "mermaid check skipped: " + err.Error()
	}
	in, err := json.Marshal(diagrams)
	if err != nil {
		panic(err)
	}
	mermaidServer.Lock()
	defer mermaidServer.Unlock()
	if mermaidServer.in == nil {
		if err := mermaidServer.start(script); err != nil {
			return "", false, "mermaid check skipped: node: " + err.Error()
		}
	}
	var res struct {
		Report string `json:"report"`
		OK     bool   `json:"ok"`
	}
	if mermaidServer.broken != nil {
		return "the mermaid checker failed earlier: " + mermaidServer.broken.Error(), false, ""
	}
	done := make(chan error, 1)
	go func() {
		_, err := mermaidServer.in.Write(append(in, '\n'))
		if err == nil {
			var line []byte
			if line, err = mermaidServer.out.ReadBytes('\n'); err == nil {
				err = json.Unmarshal(line, &res)
			}
		}
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		err = errors.New("no answer in two minutes")
	}
	if err != nil {
		// The checker is gone, stuck or talks nonsense: later calls fail too.
		mermaidServer.broken = err
		return fmt.Sprintf("the mermaid checker failed: %v\n%s", err, mermaidServer.stderr.String()), false, ""
	}
	return res.Report, res.OK, ""
}

// mermaidServer is the one node process running check.mjs for this test
// process. It reads requests until its stdin closes, which happens when
// the test process exits: it stops by itself.
var mermaidServer mermaidProc

type mermaidProc struct {
	sync.Mutex
	in     io.Writer
	out    *bufio.Reader
	stderr syncBuffer
	broken error // a call failed or timed out: the process is not to be read again
}

func (s *mermaidProc) start(script string) error {
	cmd := exec.Command("node", filepath.Base(script))
	cmd.Dir = filepath.Dir(script)
	cmd.Stderr = &s.stderr
	in, out, err := harness.StartPipes(cmd)
	if err != nil {
		return err
	}
	s.in, s.out = in, bufio.NewReader(out)
	return nil
}

var mermaidBlock = regexp.MustCompile("(?s)```mermaid\n(.*?)```")

// mermaidCondition is the script condition [mermaid]: the checker is
// installed or can be. A script says "[!mermaid] skip" before it checks
// its diagrams; TestMermaidChecker's skip message says why.
// Under CI=true a checker that cannot be installed is an error, which
// fails the script: .ci/run installs node and npm, and a skipped check
// would prove nothing.
func mermaidCondition() (bool, error) {
	_, err := mermaidChecker()
	if err != nil && harness.InCI() {
		return false, fmt.Errorf("mermaid cannot be installed under CI=true: %v", err)
	}
	return err == nil, nil
}

// cmdMermaid checks every ```mermaid block of the files named, and every
// task's "mermaid" field of a file that is context --json output.
func cmdMermaid(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: mermaid FILE...")
	}
	var ds []diagram
	for _, f := range args {
		text := ts.ReadFile(f)
		var doc struct {
			Tasks []struct {
				Task    string `json:"task"`
				Mermaid string `json:"mermaid"`
			} `json:"tasks"`
		}
		if json.Unmarshal([]byte(text), &doc) == nil {
			for _, t := range doc.Tasks {
				ds = append(ds, diagram{Name: f + ":" + t.Task, Text: t.Mermaid})
			}
			continue
		}
		for i, m := range mermaidBlock.FindAllStringSubmatch(text, -1) {
			ds = append(ds, diagram{Name: fmt.Sprintf("%s#%d", f, i+1), Text: m[1]})
		}
	}
	if len(ds) == 0 {
		ts.Fatalf("mermaid: no ```mermaid block in %s", strings.Join(args, ", "))
	}
	report, ok, skip := checkMermaid(ds)
	if skip != "" {
		// A script guards this command with [!mermaid] skip; getting
		// here means the checker went away in between.
		ts.Fatalf("%s", skip)
	}
	ts.Logf("%s", report)
	if !ok {
		ts.Fatalf("mermaid: diagrams that do not parse:\n%s", report)
	}
}

// TestMermaidChecker shows that the check can fail (a broken chart is
// reported) and that labels built from hostile record text parse: quotes,
// brackets, pipes, arrows, HTML, entities and keywords.
func TestMermaidChecker(t *testing.T) {
	t.Parallel()
	hostile := []string{
		`"]; click n1 "http://evil.example" _blank %%`,
		"<img src=x onerror=alert(1)> <br> &amp; #35; ``` `code`",
		"a --> b |x| [y] {z} (w) end subgraph style classDef",
		"@team [docs](http://evil.example) ![i](x.png) www.example.com",
		"line\nbreak\ttab \u202e bidi \x1b[31m émoji 🙂",
	}
	var g record.Graph
	for i, h := range hostile {
		id := fmt.Sprintf("01ID%022d", i)
		g.Nodes = append(g.Nodes, record.GraphNode{ID: id, Kind: record.Kinds[i%len(record.Kinds)], Label: h})
		if i > 0 {
			g.Edges = append(g.Edges, record.GraphEdge{From: g.Nodes[i-1].ID, To: id, Label: h})
		}
	}
	good := ops.Mermaid(g)
	labels := regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(good, -1)
	if len(labels) != 2*len(hostile)-1 {
		t.Fatalf("want %d quoted labels, found %d:\n%s", 2*len(hostile)-1, len(labels), good)
	}
	plain := regexp.MustCompile(`^[A-Za-z0-9 .,:;_/'?=+#-]*$`)
	for _, l := range labels {
		if !plain.MatchString(l[1]) || strings.Contains(l[1], "://") {
			t.Errorf("label %q keeps a character Mermaid or a forge reads", l[1])
		}
	}
	// One run of the checker (node and Mermaid take seconds to load): the
	// report names each chart that does not parse, on a line of its own.
	report, ok, skip := checkMermaid([]diagram{{Name: "hostile", Text: good},
		{Name: "broken", Text: "flowchart TD\n  n1[x(y)] --> n2\n"}})
	if skip != "" {
		harness.MissingTool(t, skip)
	}
	if strings.Contains(report, "hostile:") {
		t.Fatalf("a chart of hostile labels does not parse:\n%s\n%s", report, good)
	}
	if ok || !strings.Contains(report, "broken:") || !strings.Contains(report, "checked 2 diagram(s)") {
		t.Fatalf("a broken chart passed the check:\n%s", report)
	}
}
