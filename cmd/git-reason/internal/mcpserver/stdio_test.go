package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/reliability/harness"
)

// Stdio writes what the SDK's own IOTransport writes, byte for byte:
// results (of every id type), tool errors, JSON-RPC errors.
func TestStdioWritesWhatTheSDKWrites(t *testing.T) {
	dir := newRepo(t)
	requests := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"two","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"status","arguments":{"task":"nosuch"}}}`, // no name near T-1, which the first run makes
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"assess","arguments":{"task":"T-1","subject":"<b> & \"é\"","question":"q?","materiality":"trivial","reversibility":"reversible"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"schema","arguments":{"kind":"plan"}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`,
	}
	run := func(transport func(io.ReadCloser, io.WriteCloser) mcp.Transport) []string {
		ctx := context.Background()
		srv, err := New(ctx, Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		inW, outR, done := ServePipes(ctx, srv, transport)
		rd := bufio.NewReaderSize(outR, 1<<20)
		var lines []string
		for _, req := range requests {
			if _, err := inW.Write([]byte(req + "\n")); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(req, `"id"`) {
				continue
			}
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: %v", req, err)
			}
			lines = append(lines, line)
		}
		inW.Close()
		outR.Close()
		<-done
		return lines
	}
	sdk := run(func(r io.ReadCloser, w io.WriteCloser) mcp.Transport { return &mcp.IOTransport{Reader: r, Writer: w} })
	ours := run(Stdio)
	if len(ours) != len(sdk) {
		t.Fatalf("%d answers, the SDK's transport gave %d", len(ours), len(sdk))
	}
	// The assessment's id, origin, time, clock and commit differ between
	// the two runs.
	varying := regexp.MustCompile(`[0-9A-Za-z]{26}|\d{4}-\d\d-\d\dT[0-9:.]+Z|[0-9a-f]{12,40}|"clock":\d+`)
	for i := range sdk {
		if a, b := varying.ReplaceAllString(ours[i], "_"), varying.ReplaceAllString(sdk[i], "_"); a != b {
			t.Errorf("answer %d differs:\nours %.400s\nsdk  %.400s", i, a, b)
		}
	}
}

// ServePipes runs srv (Run, as 'git reason mcp' does) on the transport
// made over a pair of pipes, the way a host's stdio reaches the server,
// and returns the host's ends: in, what the server reads, and out, what
// it writes. done is closed once Run has returned: when in is closed or
// ctx ends.
func ServePipes(ctx context.Context, srv *Server, transport func(io.ReadCloser, io.WriteCloser) mcp.Transport) (in *io.PipeWriter, out *io.PipeReader, done <-chan struct{}) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	d := make(chan struct{})
	go func() {
		defer close(d)
		_ = srv.Run(ctx, transport(inR, outW))
	}()
	return inW, outR, d
}

// TestStdioAnswersBeforeEndOfInput: a client that writes its requests and
// closes its end at once (printf REQUESTS | git reason mcp) is answered
// every request, where the SDK's transport cancels those still in flight
// at the end of input and answers none of them.
func TestStdioAnswersBeforeEndOfInput(t *testing.T) {
	dir := newRepo(t)
	out := serveLines(t, dir, []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"assess","arguments":{"task":"T-1","subject":"s","question":"q?","materiality":"trivial","reversibility":"reversible"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"status","arguments":{"task":"T-1"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`,
	})
	answers := map[float64]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m struct {
			ID     float64         `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Result != nil {
			answers[m.ID] = string(m.Result)
		}
	}
	for id := 1.0; id <= 5; id++ {
		if _, ok := answers[id]; !ok {
			t.Errorf("request %v was not answered before the session ended; the server wrote:\n%.600s", id, out)
		}
	}
	// The write was made, not only answered: calls run side by side, so
	// the status (4) may or may not have seen it.
	if assessed := answers[3]; strings.Contains(assessed, `"isError":true`) {
		t.Errorf("the assessment was refused: %.600s", assessed)
	}
	if out, err := exec.Command("git", "-C", dir, "rev-parse", "--verify", "-q", "refs/reasoning/tasks/T-1").CombinedOutput(); err != nil {
		t.Errorf("no task ref after the session: %v %s", err, out)
	}
}

// A client may give its next request the id of one it has its answer
// to, as a script sending one request at a time with id 1 does: only an
// id still under way is refused (TestMCPStdioReusedID), and the id is
// free again before its answer is written.
func TestStdioIDReusedOnceAnswered(t *testing.T) {
	ctx := context.Background()
	srv, err := New(ctx, Options{Dir: newRepo(t)})
	if err != nil {
		t.Fatal(err)
	}
	inW, outR, done := ServePipes(ctx, srv, Stdio)
	rd := bufio.NewReader(outR)
	ask := func(req string) string {
		if _, err := inW.Write([]byte(req + "\n")); err != nil {
			t.Fatal(err)
		}
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v", req, err)
		}
		return line
	}
	ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if _, err := inW.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if got, want := ask(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"; got != want {
			t.Fatalf("ping %d with id 1, the last answered: %q, want %q", i, got, want)
		}
	}
	inW.Close()
	outR.Close()
	<-done
}

// TestStdioAnswersBadLinesAndGoesOn: a line that is not JSON, or JSON
// that is no JSON-RPC message, is answered with JSON-RPC's error for it
// (to the id it gave, when it gave one) and the session goes on, where
// the SDK's transport ended the session at the first such line and
// answered nothing after it. So are a batch, which ended the session too
// (the SDK refuses one once a session speaks 2025-06-18 or later), and a
// message whose id is a number the SDK would answer under another id.
func TestStdioAnswersBadLinesAndGoesOn(t *testing.T) {
	dir := newRepo(t)
	out := serveLines(t, dir, []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`not json`,
		``,
		`{}`,
		`{"id":"x9","method":"ping"}`,
		// Longer than a line may be (maxLine; past the SDK's own bound,
		// 16 MiB, it ended the session, and ping 7 went unanswered).
		`{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":"` + strings.Repeat("a", maxLine) + `"}}`,
		`[{"jsonrpc":"2.0","id":10,"method":"ping"},{"jsonrpc":"2.0","id":11,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e30,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`,
	})
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m struct {
			ID    json.RawMessage
			Error *struct{ Code int }
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("the server wrote a line that is not JSON: %q", line)
		}
		code := 0
		if m.Error != nil {
			code = m.Error.Code
		}
		got = append(got, fmt.Sprintf("%s %d", m.ID, code))
	}
	// Answers may come in any order: the bad lines are answered as they
	// are read, which may be before initialize is.
	want := []string{`"x9" -32600`, "-9007199254740992 0", "1 0", "7 0",
		"null -32600", "null -32600", "null -32600", "null -32600", "null -32600", "null -32600", "null -32700"}
	slices.Sort(got)
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("answers (id, error code) %q, want %q; the server wrote:\n%.800s", got, want, out)
	}
}

// idKept reads a message's id as the SDK does, so that no spelling of a
// message makes the SDK answer under an id the check did not see: a field
// named "ID" is not the id, the last of two ids is, an escaped name is
// the name. Each refused id is one the SDK reads as another.
func TestIDKeptAsTheSDKReadsIt(t *testing.T) {
	overflow := struct{}{} // an int64 past which the float64 was (-2^63 on amd64, saturated on arm64)
	for _, c := range []struct {
		msg  string
		kept bool
		sdk  any // the id the SDK reads
	}{
		{`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, true, int64(9007199254740992)},
		{`{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping"}`, true, int64(-9007199254740992)},
		{`{"jsonrpc":"2.0","id":"18446744073709551616","method":"ping"}`, true, "18446744073709551616"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, true, nil},
		{`{"jsonrpc":"2.0","ID":1e30,"id":5,"method":"ping"}`, true, int64(5)},
		{`{"jsonrpc":"2.0","id":1e30,"id":5,"method":"ping"}`, true, int64(5)},
		{`{"jsonrpc":"2.0","id":5,"id":1e30,"method":"ping"}`, false, overflow},
		{`{"jsonrpc":"2.0","id":5,"id":1e30,"method":"ping"}`, false, overflow},
		{`{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}`, false, overflow},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, false, int64(9007199254740992)},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, false, int64(1)},
		{`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, false, int64(100)},
	} {
		msg, err := jsonrpc.DecodeMessage([]byte(c.msg))
		if err != nil {
			t.Fatalf("%s: %v", c.msg, err)
		}
		if got := idKept([]byte(c.msg)); got != c.kept {
			t.Errorf("%s: kept %v, want %v", c.msg, got, c.kept)
		}
		got := msg.(*jsonrpc.Request).ID.Raw()
		if n, ok := got.(int64); c.sdk == overflow && ok && (n == -1<<63 || n == 1<<63-1) {
			continue
		}
		if got != c.sdk {
			t.Errorf("%s: the SDK reads the id %v (%T), not %v", c.msg, got, got, c.sdk)
		}
	}
}

// serveLines serves one session on Stdio in dir with lines as its whole
// input, and returns what the server wrote once the session ended.
func serveLines(t *testing.T, dir string, lines []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := New(ctx, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var out harness.SyncBuffer
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	if err := srv.Run(ctx, Stdio(io.NopCloser(in), &out)); err != nil && ctx.Err() != nil {
		t.Fatalf("the session did not end at the end of its input: %v", err)
	}
	return out.String()
}

// A stopped stdio session does not wait for ever for a tool call that
// does not end when cancelled: after the grace, and as long again, Run
// returns, saying on stderr that a call was still running, as guard gives
// up on an HTTP request. Before, the SDK waited for the call, and the
// process never ended.
func TestStdioStopGivesUpOnACallThatDoesNotEnd(t *testing.T) {
	srv := serverOn(t, newRepo(t))
	// The call waits for release alone, not its context, and then ends
	// without touching the repository, which the test's end removes.
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	srv.tools["tasks"].run = func(ctx context.Context, c *call) (*outcome, error) {
		close(started)
		<-release
		return nil, ctx.Err()
	}
	got := stopStdio(t, srv, 100*time.Millisecond, callTasks, func(*bufio.Reader) { <-started })
	if !strings.Contains(got, "stopped with 1 call(s) still running") || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr: %q, want one line saying a call was still running", got)
	}
}

// A write waiting for a ref lock another process holds ends when the
// stopped session cancels it, at the end of the grace: Run returns
// without giving up on it, and nothing is written. Before, the write
// waited out the lock's 10 s, past the point where Run gives up.
func TestStdioStopEndsAWriteWaitingForALock(t *testing.T) {
	dir := newRepo(t)
	held := filepath.Join(dir, ".git", "refs", "reasoning", "tasks", "T-1.lock")
	if err := os.MkdirAll(filepath.Dir(held), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(held, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The ping's answer says the assess before it was read: it is under
	// way, waiting for the lock.
	assess := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"assess","arguments":{"task":"T-1","subject":"s","question":"q?","materiality":"trivial","reversibility":"reversible"}}}` +
		"\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}`
	pinged := func(rd *bufio.Reader) {
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatalf("no answer to the ping: %v", err)
			}
			if strings.Contains(line, `"id":3,`) {
				return
			}
		}
	}
	// The grace leaves the write, cancelled at its end, as long again to
	// end: a backoff of the lock's wait is at most 0.15 s.
	if got := stopStdio(t, serverOn(t, dir), time.Second, assess, pinged); got != "" {
		t.Errorf("stderr: %q, want nothing: the write waiting for the lock ended when cancelled", got)
	}
	if out, err := exec.Command("git", "-C", dir, "rev-parse", "--verify", "-q", "refs/reasoning/tasks/T-1").CombinedOutput(); err == nil {
		t.Errorf("the stopped write made the task: %s", out)
	}
}

// stopStdio serves srv on Stdio with stopGrace set to grace, initializes
// the session, sends line, waits for under (given the server's output)
// to say the call is under way, and stops the session. It returns what
// the server wrote on stderr once Run returned.
func stopStdio(t *testing.T, srv *Server, grace time.Duration, line string, under func(*bufio.Reader)) string {
	t.Helper()
	defer func(g time.Duration, w io.Writer) { stopGrace, stderr = g, w }(stopGrace, stderr)
	stopGrace = grace
	var log harness.SyncBuffer
	stderr = &log
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in, out, done := ServePipes(ctx, srv, Stdio)
	rd := bufio.NewReader(out)
	if _, err := io.WriteString(in, initialize+"\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := rd.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+line+"\n"); err != nil {
		t.Fatal(err)
	}
	under(rd)
	go io.Copy(io.Discard, rd)
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // it gives up after twice the grace
		t.Fatal("Run did not return 30 s after it was stopped")
	}
	return log.String()
}

// idKept reports whether msg's id, read as the SDK reads it (its JSON
// library, its case-sensitive field name), is kept (numberKept). A
// message that does not decode is the SDK's to refuse.
func idKept(msg []byte) bool {
	id, _ := wireID(msg)
	return numberKept(id)
}

// pipedStdio connects the stdio transport to pipes: the connection, the
// client's side of its input, and its output's lines as written.
func pipedStdio(t *testing.T) (mcp.Connection, io.Writer, <-chan string) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn, err := Stdio(inR, outW).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inW.Close(); outR.Close(); conn.Close() })
	out := make(chan string, 10)
	go func() {
		rd := bufio.NewScanner(outR)
		for rd.Scan() {
			out <- rd.Text()
		}
		close(out)
	}()
	return conn, inW, out
}

// While the server waits for the client's answer to a request of its
// own, the stdio transport reads on past maxRunning requests unanswered,
// so that the answer can arrive, and answers a request past the bound at
// once; the answer read, it reads no more until a request is answered.
func TestStdioRefusesPastTheBoundWhileAsking(t *testing.T) {
	ctx := context.Background()
	conn, inW, out := pipedStdio(t)
	asked, _ := jsonrpc.MakeID("asked")
	if err := conn.Write(ctx, &jsonrpc.Request{ID: asked, Method: "roots/list"}); err != nil {
		t.Fatal(err)
	}
	<-out
	go func() {
		for id := 1; id <= maxRunning+1; id++ {
			fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", id)
		}
		fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":"asked","result":{}}`)
		fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":100,"method":"ping"}`)
	}()
	for range maxRunning {
		if msg, err := conn.Read(ctx); err != nil {
			t.Fatal(err)
		} else if _, ok := msg.(*jsonrpc.Request); !ok {
			t.Fatalf("read %T, want a request", msg)
		}
	}
	read := readOn(ctx, conn)
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32600,"message":"Invalid Request: %d requests are under way, the most this server runs at once; send it again once one is answered"}}`, maxRunning+1, maxRunning)
	if got := <-out; got != want {
		t.Errorf("request %d past the bound answered\n%s\nwant\n%s", maxRunning+1, got, want)
	}
	if msg := <-read; msg.(*jsonrpc.Response).ID != asked {
		t.Fatalf("read %v, want the client's answer", msg)
	}
	select {
	case msg := <-read:
		t.Fatalf("read %v with %d requests unanswered and nothing asked", msg, maxRunning)
	case <-time.After(300 * time.Millisecond):
	}
	answerThenRead100(t, conn, out, read, int64(1))
}

// A request of the server's own that it cancels (the SDK sends
// notifications/cancelled when the call's context ends), or whose write
// fails, is no longer waited for: with maxRunning requests unanswered the
// transport reads no more, where it read on, and refused every request
// past the bound at once, for the rest of the session.
func TestStdioAskingEndsWithCancelOrFailedWrite(t *testing.T) {
	for _, how := range []string{"cancelled", "write failed"} {
		t.Run(how, func(t *testing.T) {
			ctx := context.Background()
			conn, inW, out := pipedStdio(t)
			asked, _ := jsonrpc.MakeID(float64(7)) // as decoded JSON gives it
			switch how {
			case "cancelled":
				if err := conn.Write(ctx, &jsonrpc.Request{ID: asked, Method: "roots/list"}); err != nil {
					t.Fatal(err)
				}
				<-out
				if err := conn.Write(ctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":7,"reason":"context deadline exceeded"}`)}); err != nil {
					t.Fatal(err)
				}
				<-out
			case "write failed":
				done, stop := context.WithCancel(ctx)
				stop()
				if err := conn.Write(done, &jsonrpc.Request{ID: asked, Method: "roots/list"}); err == nil {
					t.Fatal("a write on a done context succeeded")
				}
			}
			go func() {
				for id := 1; id <= maxRunning+1; id++ {
					fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", id)
				}
			}()
			for range maxRunning {
				if _, err := conn.Read(ctx); err != nil {
					t.Fatal(err)
				}
			}
			read := make(chan jsonrpc.Message, 1)
			go func() {
				if msg, err := conn.Read(ctx); err == nil {
					read <- msg
				}
			}()
			select {
			case msg := <-read:
				t.Fatalf("read %v with %d requests unanswered and the server's own request %s", msg, maxRunning, how)
			case line := <-out:
				t.Fatalf("answered %s with %d requests unanswered and the server's own request %s", line, maxRunning, how)
			case <-time.After(300 * time.Millisecond):
			}
		})
	}
}

// With maxRunning requests unanswered, a client's notifications/cancelled
// for one of them is read and handed on at once (it waited for a call to
// end), while the next request is held until one is answered.
func TestStdioReadsACancelWhileFull(t *testing.T) {
	ctx := context.Background()
	conn, inW, out := pipedStdio(t)
	go func() {
		for id := 1; id <= maxRunning; id++ {
			fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", id)
		}
		fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
		fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":100,"method":"ping"}`)
	}()
	for range maxRunning {
		if _, err := conn.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	read := readOn(ctx, conn)
	select {
	case msg := <-read:
		if n, ok := msg.(*jsonrpc.Request); !ok || n.Method != "notifications/cancelled" {
			t.Fatalf("read %v with %d requests unanswered, want the cancellation", msg, maxRunning)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("a notifications/cancelled not read in 5s with %d requests unanswered", maxRunning)
	}
	select {
	case msg := <-read:
		t.Fatalf("read %v with %d requests unanswered", msg, maxRunning)
	case line := <-out:
		t.Fatalf("answered %s with %d requests unanswered", line, maxRunning)
	case <-time.After(300 * time.Millisecond):
	}
	answerThenRead100(t, conn, out, read, float64(5))
}

// readOn reads conn's messages on, from another goroutine, until a read
// fails: each is sent on the channel returned.
func readOn(ctx context.Context, conn mcp.Connection) <-chan jsonrpc.Message {
	read := make(chan jsonrpc.Message, 2)
	go func() {
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				return
			}
			read <- msg
		}
	}()
	return read
}

// answerThenRead100 answers the request id read on conn, and wants the
// next message read to be request 100, held until then.
func answerThenRead100(t *testing.T, conn mcp.Connection, out <-chan string, read <-chan jsonrpc.Message, id any) {
	t.Helper()
	rid, _ := jsonrpc.MakeID(id)
	if err := conn.Write(context.Background(), &jsonrpc.Response{ID: rid, Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	<-out
	if req, ok := (<-read).(*jsonrpc.Request); !ok || req.ID.Raw() != int64(100) {
		t.Fatalf("read %v after an answer, want ping 100", req)
	}
}
