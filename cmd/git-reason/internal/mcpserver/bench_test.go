package mcpserver_test

// Benchmarks of the MCP server in one process, against the command line's
// code path in the same run (bench/mcp/run.sh runs them):
//
//	go test ./cmd/git-reason/internal/mcpserver -run '^$' -bench . -benchtime 20x -count 1
//
// A cycle is seven appends (assess, plan, conclude, validate, disagree,
// resolve, attempt) on a new task. Through MCP each append is one
// tools/call to a running server over a pipe, as a host sends it on stdio;
// through the command line each is one cli.Main call, as 'git reason VERB'
// runs it, less the process start. Cycles alternate between the two, so
// that both see the same machine load; the medians per append are reported,
// with the same appends made straight through the operations layer (the
// writer and its git work, which both surfaces share) as the floor.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"git-reason/cmd/git-reason/internal/cli"
	"git-reason/cmd/git-reason/internal/mcpserver"
	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
	"git-reason/reliability/harness"
)

func benchRepo(b *testing.B) string {
	b.Helper()
	dir := mcpserver.NewRepo(b)
	b.Setenv("GIT_REASON_PROFILE", "ci") // no advisor: the cycle is the writer's, not an advisor's
	b.Chdir(dir)
	return dir
}

// pipeClient speaks JSON-RPC lines to a running server over a pipe, as a
// host does over stdio; it reads each answer as one line and decodes only
// what it needs, so that the time measured is the server's.
type pipeClient struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	next int
	read time.Time // when the last answer's final byte was read, before it is decoded
}

func benchServer(b *testing.B, dir string) *pipeClient {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := mcpserver.New(ctx, mcpserver.Options{Dir: dir, CacheDelay: 100 * time.Millisecond}) // as git reason mcp runs it
	if err != nil {
		b.Fatal(err)
	}
	inW, outR, done := mcpserver.ServePipes(ctx, srv, mcpserver.Stdio) // as 'git reason mcp' serves stdio
	b.Cleanup(func() { inW.Close(); cancel(); <-done; srv.Close() })
	c := &pipeClient{in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	c.call(b, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "1"}})
	if _, err := inW.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		b.Fatal(err)
	}
	return c
}

// call sends one request and returns the raw result.
func (c *pipeClient) call(b *testing.B, method string, params any) json.RawMessage {
	c.next++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	if _, err := c.in.Write(append(req, '\n')); err != nil {
		b.Fatal(err)
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		read := time.Now()
		var resp struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			b.Fatal(err)
		}
		if resp.ID == nil || *resp.ID != c.next {
			continue
		}
		if resp.Error != nil {
			b.Fatalf("%s: %s", method, resp.Error)
		}
		c.read = read
		return resp.Result
	}
}

// step is one append of the cycle, as a tool call and as command line
// arguments; ids come from earlier steps' results.
type step struct {
	tool string
	args func(task string, ids map[string]string) map[string]any
	argv func(task string, ids map[string]string) []string
	keep string // the name under which the record's id is kept
}

var cycle = []step{
	{"assess", func(task string, _ map[string]string) map[string]any {
		return map[string]any{"task": task, "subject": "Queue backend " + task, "question": "Keep the queue in the database?",
			"materiality": "trivial", "reversibility": "reversible"}
	}, func(task string, _ map[string]string) []string {
		return []string{"assess", task, "--subject", "Queue backend " + task, "--question", "Keep the queue in the database?",
			"--materiality", "trivial", "--reversibility", "reversible"}
	}, "A"},
	{"plan", func(task string, _ map[string]string) map[string]any { return map[string]any{"task": task} },
		func(task string, _ map[string]string) []string { return []string{"plan", task} }, "P"},
	{"conclude", func(task string, _ map[string]string) map[string]any {
		return map[string]any{"task": task, "decision": "keep it"}
	}, func(task string, _ map[string]string) []string {
		return []string{"conclude", task, "--decision", "keep it"}
	}, "C"},
	{"validate", func(task string, _ map[string]string) map[string]any {
		return map[string]any{"task": task, "result": "pass", "evidence": []any{map[string]any{"kind": "note", "summary": "load test green"}}}
	}, func(task string, _ map[string]string) []string {
		return []string{"validate", task, "--manual", "pass", "--evidence", "note::load test green"}
	}, "V"},
	{"disagree", func(task string, ids map[string]string) map[string]any {
		return map[string]any{"task": task, "cites": []any{ids["C"], ids["V"]}, "summary": "the test does not cover failover"}
	}, func(task string, ids map[string]string) []string {
		return []string{"disagree", task, "--cites", ids["C"], "--cites", ids["V"], "--summary", "the test does not cover failover"}
	}, "D"},
	{"resolve", func(task string, ids map[string]string) map[string]any {
		return map[string]any{"task": task, "disagreement": ids["D"], "decision": "failover is covered by the drill",
			"evidence": []any{map[string]any{"kind": "note", "summary": "drill log"}}}
	}, func(task string, ids map[string]string) []string {
		return []string{"resolve", task, ids["D"], "--decision", "failover is covered by the drill", "--evidence", "note::drill log"}
	}, ""},
	{"attempt", func(task string, _ map[string]string) map[string]any {
		return map[string]any{"task": task, "outcome": "succeeded"}
	}, func(task string, _ map[string]string) []string {
		return []string{"attempt", task, "--outcome", "succeeded"}
	}, ""},
}

// cycleMCP runs the cycle through the server and adds each append's time.
func cycleMCP(b *testing.B, c *pipeClient, task string, times *[]time.Duration) {
	ids := map[string]string{}
	for _, st := range cycle {
		start := time.Now()
		raw := c.call(b, "tools/call", map[string]any{"name": st.tool, "arguments": st.args(task, ids)})
		*times = append(*times, time.Since(start))
		var res struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				ID string `json:"id"`
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(raw, &res); err != nil || res.IsError {
			b.Fatalf("%s %s: %v %s", st.tool, task, err, raw)
		}
		if st.keep != "" {
			ids[st.keep] = res.StructuredContent.ID
		}
	}
}

// cycleCLI runs the cycle through the command line's code path.
func cycleCLI(b *testing.B, task string, times *[]time.Duration) {
	ids := map[string]string{}
	for _, st := range cycle {
		var out, errb bytes.Buffer
		args := append([]string{"git-reason"}, st.argv(task, ids)...)
		if st.keep != "" {
			args = append(args, "--json")
		}
		start := time.Now()
		code := cli.Main(args, nil, &out, &errb)
		*times = append(*times, time.Since(start))
		if code != 0 {
			b.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		if st.keep != "" {
			var rec struct{ ID string }
			_ = json.Unmarshal(out.Bytes(), &rec)
			ids[st.keep] = rec.ID
		}
	}
}

// kinds maps the cycle's tools to the record kind each appends.
var kinds = map[string]record.Kind{"assess": record.KindAssessment, "plan": record.KindPlan, "conclude": record.KindConclusion,
	"validate": record.KindValidation, "disagree": record.KindDisagreement, "resolve": record.KindResolution, "attempt": record.KindAttempt}

// cycleWriter appends the same bodies straight through the operations
// layer (ops.Session.Append, the writer), with the ids the server would
// fill in given: the floor under both surfaces.
func cycleWriter(b *testing.B, sess *ops.Session, task string, times *[]time.Duration) {
	ids := map[string]string{}
	for _, st := range cycle {
		body := st.args(task, ids)
		delete(body, "task")
		switch st.tool {
		case "plan", "conclude", "disagree":
			body["assessment"] = ids["A"]
		case "validate", "attempt":
			body["conclusion"] = ids["C"]
		}
		if st.tool == "validate" {
			body["method"] = "manual"
		}
		raw, _ := json.Marshal(body)
		start := time.Now()
		res, err := sess.Append(context.Background(), task, kinds[st.tool], raw)
		*times = append(*times, time.Since(start))
		if err != nil {
			b.Fatalf("%s %s: %v", st.tool, task, err)
		}
		if st.keep != "" {
			ids[st.keep] = res.ID
		}
	}
}

// cycleFiles makes, for each append of a cycle, the files an append makes
// and nothing else, in the same repository (appendFiles, with objects of
// 300 bytes): the floor under an append's CPU time on this machine's disk.
func cycleFiles(b *testing.B, dir, task string) {
	for i := range cycle {
		appendFiles(b, dir, task, fmt.Sprintf("%s_%d", task, i), []int{300, 300, 300, 300})
	}
}

// appendFiles makes the files one append makes and nothing else, in the
// repository at dir: a temporary file in objects/pack (where the writer's
// objects start) for each of the objects (their sizes), each written and
// renamed into a directory of its own (named after name), and the lock of
// a file named ref under .git/reason, written, synced and renamed over
// the file it guards (as the ref's lock is). It is the file system's part of a write, which no code of the
// server's can avoid, measured beside it in the same run.
func appendFiles(b *testing.B, dir, ref, name string, objects []int) {
	git := filepath.Join(dir, ".git")
	pack := filepath.Join(git, "objects", "pack")
	kept := filepath.Join(git, "reason", "floor")
	if err := os.MkdirAll(kept, 0o777); err != nil {
		b.Fatal(err)
	}
	for j, size := range objects {
		tmp := filepath.Join(pack, fmt.Sprintf("tmp_obj_floor_%s_%d", name, j))
		if err := os.WriteFile(tmp, bytes.Repeat([]byte("x"), size), 0o444); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(kept, filepath.Base(tmp))); err != nil {
			b.Fatal(err)
		}
	}
	ref = filepath.Join(kept, ref)
	f, err := os.OpenFile(ref+".lock", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		b.Fatal(err)
	}
	_, err = f.Write(bytes.Repeat([]byte("x"), 41))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(ref+".lock", ref)
	}
	if err != nil {
		b.Fatal(err)
	}
}

// timed runs f and adds the CPU time it used to *sum.
func timed(sum *time.Duration, f func()) {
	start := harness.CPUTime()
	f()
	*sum += harness.CPUTime() - start
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkCycleMCPAgainstCLI reports the median time of one append through
// the running server and through the command line's code path, and their
// ratio, and the CPU time of the files an append makes alone (cycleFiles).
// Target: an append through the server ≤ 3 ms.
func BenchmarkCycleMCPAgainstCLI(b *testing.B) {
	dir := benchRepo(b)
	c := benchServer(b, dir)
	sess, err := ops.Open(context.Background(), ops.Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	var viaMCP, viaCLI, viaWriter []time.Duration
	var cpuMCP, cpuCLI, cpuWriter, cpuFiles time.Duration
	i := 0
	for b.Loop() {
		i++
		timed(&cpuMCP, func() { cycleMCP(b, c, fmt.Sprintf("M-%d", i), &viaMCP) })
		timed(&cpuCLI, func() { cycleCLI(b, fmt.Sprintf("C-%d", i), &viaCLI) })
		timed(&cpuWriter, func() { cycleWriter(b, sess, fmt.Sprintf("W-%d", i), &viaWriter) })
		timed(&cpuFiles, func() { cycleFiles(b, dir, fmt.Sprintf("F-%d", i)) })
	}
	n := float64(len(viaMCP))
	b.ReportMetric(ms(harness.Median(viaWriter)), "ms/append-writer")
	b.ReportMetric(ms(cpuMCP)/n, "cpu-ms/append-mcp")
	b.ReportMetric(ms(cpuCLI)/n, "cpu-ms/append-cli")
	b.ReportMetric(ms(cpuWriter)/n, "cpu-ms/append-writer")
	b.ReportMetric(ms(cpuFiles)/n, "cpu-ms/append-files")
	viaM, viaC := harness.Median(viaMCP), harness.Median(viaCLI)
	b.ReportMetric(ms(viaM), "ms/append-mcp")
	b.ReportMetric(ms(viaC), "ms/append-cli")
	b.ReportMetric(float64(viaM)/float64(viaC), "mcp/cli")
	b.ReportMetric(float64(len(viaMCP)), "appends-each")
}

// BenchmarkToolsList reports the median time of tools/list through the
// running server, from the request's write to the answer's last byte read
// (the server's time), and to the answer decoded by this client with
// encoding/json (what a host adds), with their 90th percentiles, and the
// answer's size. Target ≤ 1 ms.
func BenchmarkToolsList(b *testing.B) {
	c := benchServer(b, benchRepo(b))
	var served, decoded []time.Duration
	var used time.Duration
	size := 0
	for b.Loop() {
		timed(&used, func() {
			start := time.Now()
			size = len(c.call(b, "tools/list", map[string]any{}))
			decoded = append(decoded, time.Since(start))
			served = append(served, c.read.Sub(start))
		})
	}
	b.ReportMetric(ms(used)/float64(len(served)), "cpu-ms/list")
	b.ReportMetric(ms(harness.Median(served)), "ms/list-median")
	b.ReportMetric(ms(harness.Median(decoded)), "ms/list-decoded-median")
	b.ReportMetric(ms(harness.P90(served)), "ms/list-p90")
	b.ReportMetric(ms(harness.P90(decoded)), "ms/list-decoded-p90")
	b.ReportMetric(float64(size), "result-bytes")
}

// BenchmarkMCPAppendsOnly runs the cycle through the server alone, for a
// profile (-cpuprofile) or a trace of the server's system calls that no
// other path mixes into: the CPU time per append, the median wall time,
// and the records decoded per append.
func BenchmarkMCPAppendsOnly(b *testing.B) {
	c := benchServer(b, benchRepo(b))
	var via []time.Duration
	var used time.Duration
	decodes := record.Decodes()
	i := 0
	for b.Loop() {
		i++
		timed(&used, func() { cycleMCP(b, c, fmt.Sprintf("M-%d", i), &via) })
	}
	b.ReportMetric(ms(used)/float64(len(via)), "cpu-ms/append-mcp")
	b.ReportMetric(ms(harness.Median(via)), "ms/append-mcp")
	b.ReportMetric(float64(record.Decodes()-decodes)/float64(len(via)), "decodes/append")
}

// BenchmarkMCPLongTask appends attempts through the server to a task that
// already holds longTask records (written first, through the server, not
// timed): what one write costs when the task is long. Reported as
// BenchmarkMCPAppendsOnly is, with the CPU time of the files each append
// makes alone (appendFiles, with the objects' sizes: the records tree
// holds the task's entries), made after each append in the same run.
func BenchmarkMCPLongTask(b *testing.B) {
	dir := benchRepo(b)
	c := benchServer(b, dir)
	var ignored []time.Duration
	cycleMCP(b, c, "L-1", &ignored) // assess ... attempt: 7 records
	attempt := map[string]any{"task": "L-1", "outcome": "succeeded"}
	for range longTask - len(cycle) {
		c.call(b, "tools/call", map[string]any{"name": "attempt", "arguments": attempt})
	}
	var via []time.Duration
	var used, files time.Duration
	decodes := record.Decodes()
	i := 0
	for b.Loop() {
		i++
		timed(&used, func() {
			start := time.Now()
			c.call(b, "tools/call", map[string]any{"name": "attempt", "arguments": attempt})
			via = append(via, time.Since(start))
		})
		// blob, records tree (an entry is about 78 bytes), root tree, commit
		timed(&files, func() { appendFiles(b, dir, "L", fmt.Sprintf("L_%d", i), []int{400, 78 * (longTask + i), 53, 330}) })
	}
	b.ReportMetric(ms(used)/float64(len(via)), "cpu-ms/append-mcp")
	b.ReportMetric(ms(files)/float64(len(via)), "cpu-ms/append-files")
	b.ReportMetric(ms(harness.Median(via)), "ms/append-mcp")
	b.ReportMetric(float64(record.Decodes()-decodes)/float64(len(via)), "decodes/append")
}

// longTask is how many records BenchmarkMCPLongTask's task holds first.
const longTask = 300
