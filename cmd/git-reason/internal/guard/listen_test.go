package guard

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestReach: a server on one address is reached at its URL; one on every
// interface (no host, 0.0.0.0 or ::, reported as [::] or 0.0.0.0) is
// named so, by its port, with URLs a client can type: loopback from this
// machine, the first allowed host (its port added when it has none) from
// elsewhere. No line names [::] or 0.0.0.0.
func TestReach(t *testing.T) {
	any6 := &net.TCPAddr{IP: net.IPv6unspecified, Port: 41073}
	any4 := &net.TCPAddr{IP: net.IPv4zero, Port: 41073}
	for _, c := range []struct {
		name   string
		addr   net.Addr
		scheme string
		allow  []string
		want   string
	}{
		{"loopback", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7411}, "http", nil, "http://127.0.0.1:7411/v1/review"},
		{"ipv6 loopback", &net.TCPAddr{IP: net.IPv6loopback, Port: 7411}, "http", nil, "http://[::1]:7411/v1/review"},
		{"one address", &net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 7411}, "https", nil, "https://192.168.1.5:7411/v1/review"},
		{"every interface", any6, "http", nil, "every interface, port 41073: http://127.0.0.1:41073/v1/review from this machine"},
		{"every IPv4 interface", any4, "https", nil, "every interface, port 41073: https://127.0.0.1:41073/v1/review from this machine"},
		{"an allowed host", any6, "http", []string{"build.example", "other.example"},
			"every interface, port 41073: http://127.0.0.1:41073/v1/review from this machine, http://build.example:41073/v1/review from elsewhere"},
		{"an allowed host with its port", any6, "https", []string{"reviews.example:443"},
			"every interface, port 41073: https://127.0.0.1:41073/v1/review from this machine, https://reviews.example:443/v1/review from elsewhere"},
		{"an allowed IPv6 address", any6, "http", []string{"fd00::5"},
			"every interface, port 41073: http://127.0.0.1:41073/v1/review from this machine, http://[fd00::5]:41073/v1/review from elsewhere"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Reach(c.addr, c.scheme, "/v1/review", c.allow); got != c.want {
				t.Errorf("Reach = %q\n want %q", got, c.want)
			}
		})
	}
}

// TestExposure: a server on every interface is warned about by its port,
// never by [::]; one on an address by that address; and the warning that
// only loopback names are accepted gives as an example of --allow-host
// the address listened on, or on every interface this machine's name.
func TestExposure(t *testing.T) {
	every := Exposure(&net.TCPAddr{IP: net.IPv6unspecified, Port: 41073}, false, nil)
	if len(every) != 2 || !strings.HasPrefix(every[0], "warning: serving on every interface (port 41073) without TLS: ") {
		t.Errorf("every interface: %q", every)
	}
	if name, err := os.Hostname(); err == nil && name != "" && len(every) == 2 &&
		!strings.Contains(every[1], "name this machine with --allow-host (such as --allow-host "+name+") for clients elsewhere") {
		t.Errorf("no example of --allow-host: %q", every[1])
	}
	one := Exposure(&net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 7411}, false, []string{"build.example"})
	if len(one) != 1 || !strings.HasPrefix(one[0], "warning: serving on 192.168.1.5:7411 beyond loopback without TLS: ") {
		t.Errorf("one address: %q", one)
	}
	at := Exposure(&net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 7411}, true, nil)
	if len(at) != 1 || at[0] != "warning: only loopback Host names are accepted: name this machine with --allow-host (such as --allow-host 192.168.1.5) for clients elsewhere" {
		t.Errorf("one address, no allowed host: %q", at)
	}
	for _, lines := range [][]string{every, one, at} {
		for _, l := range lines {
			if strings.Contains(l, "[::]") || strings.Contains(l, "0.0.0.0") {
				t.Errorf("a warning names an address no client can type: %q", l)
			}
		}
	}
	if got := Exposure(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7411}, false, nil); got != nil {
		t.Errorf("loopback: %q", got)
	}
}

// TestOnLoopback: an address with no host listens on loopback; any other
// is kept as given.
func TestOnLoopback(t *testing.T) {
	for in, want := range map[string]string{
		":7412": "127.0.0.1:7412", ":0": "127.0.0.1:0", "0.0.0.0:7412": "0.0.0.0:7412",
		"[::]:7412": "[::]:7412", "localhost:0": "localhost:0", "nonsense": "nonsense",
	} {
		if got := OnLoopback(in); got != want {
			t.Errorf("OnLoopback(%q) = %q, want %q", in, got, want)
		}
	}
}

// served serves h behind the guard (token testToken) on 127.0.0.1,
// bounded by l, until the test ends, through Run as serve does, and
// returns its address.
func served(t *testing.T, h http.Handler, l Limits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, ln, Wrap(Config{Token: testToken}, h), l, "", "") }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

const testToken = "0123456789abcdef0123456789abcdef"

// request is the start of a request the guard lets through, its body
// of n bytes still to send.
func request(addr string, n int) string {
	return fmt.Sprintf("POST /v1/review HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, testToken, n)
}

// dial connects to addr; the connection is closed when the test ends.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// cutWhileTrickling sends data to c one byte every 20 ms and reports how
// long after the first the server closed c (reading gives EOF or a
// reset), what it read before, and false when c was still open within.
// The tests give within 20 s, far past the bound they check (a loaded
// machine outlasted 3 s), yet before the data is all sent or Read (30 s)
// would end the connection: without the bound checked, c stays open.
func cutWhileTrickling(c net.Conn, data string, within time.Duration) (time.Duration, string, bool) {
	start := time.Now()
	read := make(chan string, 1)
	go func() { b, _ := io.ReadAll(c); read <- string(b) }()
	for i := 0; time.Since(start) < within; i++ {
		if i < len(data) {
			if _, err := c.Write([]byte{data[i]}); err != nil {
				break
			}
		}
		select {
		case got := <-read:
			return time.Since(start), got, true
		case <-time.After(20 * time.Millisecond):
		}
	}
	select {
	case got := <-read:
		return time.Since(start), got, true
	case <-time.After(100 * time.Millisecond):
		return time.Since(start), "", false
	}
}

// A client that sends its request's headers a byte at a time is cut off
// at ReadHeader, before any handler runs: without it (net/http then
// uses Read, here serve's 30 s) the connection stays open.
func TestSlowHeadersCut(t *testing.T) {
	tm := API
	tm.ReadHeader = 300 * time.Millisecond
	addr := served(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), tm)
	c := dial(t, addr)
	headers := "POST /v1/review HTTP/1.1\r\nHost: " + addr + "\r\nX-Slow: " + strings.Repeat("a", 1000)
	took, got, cut := cutWhileTrickling(c, headers, 20*time.Second) // the headers take 20 s to send
	if !cut || took < tm.ReadHeader/2 {
		t.Fatalf("headers sent a byte every 20 ms: connection cut %v after %v (read %q), want cut at ReadHeader %v", cut, took, got, tm.ReadHeader)
	}
}

// A client that sends its body a byte at a time is cut off at Read: the
// handler's read fails, and the connection is closed. Without it the
// body is read to its end (here 5 s), the connection kept.
func TestSlowBodyCut(t *testing.T) {
	tm := API
	tm.Read = 500 * time.Millisecond
	readErr := make(chan error, 1)
	addr := served(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		readErr <- err
		if err != nil {
			refuse(w, http.StatusBadRequest, "read the request")
		}
	}), tm)
	c := dial(t, addr)
	if _, err := io.WriteString(c, request(addr, 250)); err != nil {
		t.Fatal(err)
	}
	took, got, cut := cutWhileTrickling(c, strings.Repeat(" ", 250), 20*time.Second)
	if !cut || took < tm.Read/2 {
		t.Fatalf("body sent a byte every 20 ms: connection cut %v after %v (read %q), want cut at Read %v", cut, took, got, tm.Read)
	}
	select {
	case err := <-readErr:
		if err == nil {
			t.Error("the handler read the whole body")
		}
	default:
		t.Error("the handler never ran")
	}
}

// A kept-alive connection that sends nothing after its answer is closed
// at Idle; without it (net/http then uses Read, 30 s) it stays open.
func TestIdleConnectionClosed(t *testing.T) {
	tm := API
	tm.Idle = 300 * time.Millisecond
	addr := served(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") }), tm)
	c := dial(t, addr)
	if _, err := io.WriteString(c, request(addr, 2)+"{}"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("answer %d, close %v: want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
	}
	start := time.Now()
	c.SetReadDeadline(start.Add(20 * time.Second)) // before Read (30 s) would close it
	n, err := br.Read(make([]byte, 1))
	if took := time.Since(start); err != io.EOF || took < tm.Idle/2 {
		t.Fatalf("idle connection: read %d bytes, %v after %v; want EOF at Idle %v", n, err, took, tm.Idle)
	}
}

// A client that asks for a large answer and never reads it holds
// nothing past Write: the handler's write fails, the handler returns,
// the connection is closed. Without it the handler waits in its write
// for as long as the client keeps the connection.
func TestUnreadAnswerReleased(t *testing.T) {
	tm := API
	tm.Write = 500 * time.Millisecond
	returned := make(chan error, 1)
	chunk := make([]byte, 32<<10)
	addr := served(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var err error
		for i := 0; i < 2048 && err == nil; i++ { // 64 MiB, far past what the sockets hold
			_, err = w.Write(chunk)
		}
		returned <- err
	}), tm)
	c := dial(t, addr)
	if _, err := io.WriteString(c, request(addr, 2)+"{}"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-returned:
		if err == nil {
			t.Fatal("the handler wrote 64 MiB to a client that reads nothing")
		}
	case <-time.After(20 * time.Second): // without Write it never returns; generous under load
		t.Fatal("the handler still writes 20 s after Write, to a client that reads nothing")
	}
	// What the sockets held is all the client can read: then the server
	// has closed the connection.
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := io.Copy(io.Discard, c); err != nil || n >= 64<<20 {
		t.Errorf("after the handler returned, the client read %d bytes, then %v: want less than the answer, then the server's close", n, err)
	}
}

// The production bounds are the ones docs/SECURITY.md states, none of
// them zero (net/http's "no limit"), and server gives each timeout to the
// http.Server it makes.
func TestProductionLimits(t *testing.T) {
	for name, c := range map[string]struct{ got, want Limits }{
		"API":  {API, Limits{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 5 * time.Minute, Idle: time.Minute, HeaderSize: 32 << 10}},
		"Page": {Page, Limits{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: time.Minute, Idle: 30 * time.Second, HeaderSize: 16 << 10}},
	} {
		if c.got != c.want {
			t.Errorf("%s: %+v, want %+v", name, c.got, c.want)
		}
		s := server(nil, c.got)
		if got := (Limits{s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout, s.MaxHeaderBytes}); got != c.want {
			t.Errorf("server(h, %s): %+v, want %+v", name, got, c.want)
		}
	}
}

// TestListenFailed: an address a server cannot listen on is named as
// typed, with why in a person's terms, not net.Listen's repetition of the
// address and its system call ("listen tcp 127.0.0.1:7411: bind: address
// already in use"); an address in use, a second serve on the default
// port, says so and what to do.
func TestListenFailed(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	busy := held.Addr().String()
	for _, c := range []struct{ addr, want string }{
		{busy, "listen on " + busy + ": the address is in use (another server, perhaps another git reason, listens there): give another port, such as 127.0.0.1:0 (port 0 picks a free one)"},
		{"nonsense", "listen on nonsense: missing port in address: " + ListenHint},
		{"127.0.0.1:99999", "listen on 127.0.0.1:99999: invalid port: " + ListenHint},
	} {
		ln, err := net.Listen("tcp", c.addr)
		if err == nil {
			ln.Close()
			t.Fatalf("%s: listened", c.addr)
		}
		if got := ListenFailed(c.addr, err); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.addr, got, c.want)
		}
	}
}

// Run returns only once the requests under way when ctx ended have been
// answered: net/http's Serve returns as Shutdown begins, and a server
// that returned then ended its process with a write cut wherever it was.
func TestRunWaitsForRequestsUnderWay(t *testing.T) {
	reached, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(reached)
		<-release
		io.WriteString(w, "answered")
	})
	c, done := stopUnderWay(t, h, stopGrace, reached)
	select {
	case err := <-done:
		t.Fatalf("Run returned (%v) while a request was under way", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	returnsClean(t, done, "the last request was answered")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if got, _ := io.ReadAll(c); !strings.Contains(string(got), "answered") {
		t.Errorf("the request under way was not answered: %q", got)
	}
}

// A request still under way after the grace has its context ended, and
// Run waits for it to unwind: a handler that waits on its context (a git
// process, an advisor's call) releases what it holds before the process
// ends, rather than being cut with it after the grace.
func TestRunEndsRequestsPastTheGrace(t *testing.T) {
	reached, unwound := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(reached)
		<-r.Context().Done()
		time.Sleep(50 * time.Millisecond) // what it holds, released
		close(unwound)
	})
	_, done := stopUnderWay(t, h, 200*time.Millisecond, reached)
	returnsClean(t, done, "its context ended")
	select {
	case <-unwound:
	default:
		t.Error("Run returned before the request past the grace had unwound (its context never ended)")
	}
}

// returnsClean waits for Run's error on done and fails the test unless
// Run returns nil within 10 s (after what, for the message).
func returnsClean(t *testing.T, done <-chan error, after string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return 10 s after " + after)
	}
}

// stopUnderWay serves h behind the guard through run with grace, sends it
// a request, and once h has it (reached is closed) ends the server's
// context: it returns the request's connection and where Run's result
// comes.
func stopUnderWay(t *testing.T, h http.Handler, grace time.Duration, reached <-chan struct{}) (net.Conn, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- run(ctx, ln, Wrap(Config{Token: testToken}, h), API, "", "", grace) }()
	addr := ln.Addr().String()
	c := dial(t, addr)
	if _, err := io.WriteString(c, request(addr, 2)+"{}"); err != nil {
		t.Fatal(err)
	}
	<-reached
	cancel()
	return c, done
}
