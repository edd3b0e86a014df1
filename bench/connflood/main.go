// Command connflood opens connections to a server that send nothing, as a
// client without the token can, and says what each batch costs the
// server: its open files and resident memory once the batch is held, and
// how long an honest request then waits for its answer. run.sh starts the
// servers; this measures one.
//
// Usage: connflood -addr HOST:PORT -pid PID -token T [-n 100,1000,...]
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "", "the server's HOST:PORT")
	pid := flag.Int("pid", 0, "the server's process id")
	token := flag.String("token", "", "the server's token, for the honest request")
	path := flag.String("path", "/v1/review", "the honest request's path")
	ns := flag.String("n", "0,100,1000,5000,10000,19000", "the batches: connections held at once")
	flag.Parse()
	fmt.Printf("%8s %8s %8s %8s %s\n", "held", "fds", "rss_MB", "open_s", "honest request")
	for _, f := range strings.Split(*ns, ",") {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil {
			fmt.Fprintln(os.Stderr, "connflood: -n: give numbers separated by commas")
			os.Exit(2)
		}
		// The server cuts a connection that sends nothing at its header
		// timeout (10 s): open the batch, measure, close it.
		start := time.Now()
		var conns []net.Conn
		for len(conns) < n {
			c, err := net.DialTimeout("tcp", *addr, 2*time.Second)
			if err != nil {
				break
			}
			conns = append(conns, c)
		}
		opened := time.Since(start)
		time.Sleep(500 * time.Millisecond)
		fds, rss := cost(*pid)
		honest := request(*addr, *path, *token)
		fmt.Printf("%8d %8d %8d %8.2f %s\n", len(conns), fds, rss, opened.Seconds(), honest)
		for _, c := range conns {
			c.Close()
		}
		time.Sleep(time.Second)
	}
}

// cost is pid's open files and resident memory in MB.
func cost(pid int) (int, int) {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	rss := 0
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "VmRSS:" {
			var kb int
			_, _ = fmt.Sscan(f[1], &kb)
			rss = kb / 1024
		}
	}
	return len(fds), rss
}

// request sends an honest request (the token, an empty JSON object) and
// says its status and how long it took, or its error.
func request(addr, path, token string) string {
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+path, strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := (&http.Client{Timeout: 15 * time.Second}).Do(req)
	if err != nil {
		return fmt.Sprintf("failed after %.2fs: %v", time.Since(start).Seconds(), err)
	}
	resp.Body.Close()
	return fmt.Sprintf("%d in %.3fs", resp.StatusCode, time.Since(start).Seconds())
}
