// Command sign-bench measures what signing records costs: appends through
// the resident MCP server signed with an ssh key held by a throwaway
// ssh-agent against unsigned ones, and 'git reason verify' of -records
// signed records (in -tasks tasks S-0…) against as many unsigned ones
// (U-0…), first (as in a fresh clone), again, and after a few new records
// (run by
// bench/sign/run.sh, which says what it prints).
//
// Everything lives in a temporary directory (or -dir) with its own HOME
// and git configuration; the agent it starts is killed at the end.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/reliability/harness"
)

// options is what the flags set.
type options struct {
	records, tasks           int
	runs, firstRuns, gitRuns int
	dir                      string // kept; "": a temporary one, removed
}

func main() {
	var o options
	flag.IntVar(&o.records, "records", 2000, "signed records verified, and as many unsigned ones")
	flag.IntVar(&o.tasks, "tasks", 20, "tasks the records of each kind are spread over (appends to a task of thousands of records are slow)")
	flag.IntVar(&o.runs, "runs", 7, "timed re-verify runs of each task")
	flag.IntVar(&o.firstRuns, "first-runs", 3, "timed first verify runs of each task (no verdict kept)")
	flag.IntVar(&o.gitRuns, "git-runs", 1, "timed first verify runs with every signature left to git, and runs of git alone on the signed commits (0: none; at 2,000 records each takes over ten minutes at load 25)")
	flag.StringVar(&o.dir, "dir", "", "work directory (default: a temporary one, removed)")
	flag.Parse()
	harness.ExitOn("sign-bench", run(o))
}

type env struct {
	dir  string // the repository
	vars []string
}

func (e env) cmd(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Dir, c.Env = e.dir, e.vars
	return c
}

func (e env) run(name string, args ...string) error {
	out, err := e.cmd(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

func run(o options) error {
	if o.tasks < 1 || o.tasks > o.records {
		return fmt.Errorf("-tasks must be between 1 and -records")
	}
	names := func(kind string) []string {
		out := make([]string, o.tasks)
		for i := range out {
			out[i] = fmt.Sprintf("%s-%d", kind, i)
		}
		return out
	}
	sig, uns := names("S"), names("U")
	dir, remove, err := harness.WorkDir(o.dir, "sign-bench-")
	if err != nil {
		return err
	}
	defer remove()
	bin, err := harness.Binary()
	if err != nil {
		return err
	}
	home := filepath.Join(dir, "home")
	repo := filepath.Join(dir, "repo")
	for _, d := range []string{home, repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	sock := filepath.Join(dir, "agent.sock")
	gitPath, _ := exec.LookPath("git")
	e := env{dir: repo, vars: []string{
		"PATH=" + filepath.Dir(bin) + ":" + filepath.Dir(gitPath) + ":/usr/bin:/bin",
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "SSH_AUTH_SOCK=" + sock, "LC_ALL=C", "TZ=UTC",
	}}
	key := filepath.Join(dir, "ada_key")
	if err := e.run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ada", "-f", key); err != nil {
		return err
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		return err
	}
	allowed := filepath.Join(dir, "allowed")
	if err := os.WriteFile(allowed, []byte("ada@example.invalid "+string(pub)), 0o644); err != nil {
		return err
	}
	agent := e.cmd("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		return err
	}
	defer func() { _ = agent.Process.Kill(); _ = agent.Wait() }()
	for i := 0; ; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if i > 100 {
			return fmt.Errorf("ssh-agent made no socket at %s", sock)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := e.run("ssh-add", "-q", key); err != nil {
		return err
	}
	if err := e.run("git", "init", "-q"); err != nil {
		return err
	}
	for _, kv := range [][2]string{{"user.name", "Ada Tester"}, {"user.email", "ada@example.invalid"},
		{"gpg.format", "ssh"}, {"user.signingKey", "key::" + strings.TrimSpace(string(pub))},
		{"gpg.ssh.allowedSignersFile", allowed}, {"gc.auto", "0"}} {
		if err := e.run("git", "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	// Two resident servers: one signs (commit.gpgSign through git's
	// environment configuration), one does not.
	signed, err := connect(e, true)
	if err != nil {
		return err
	}
	defer signed.Close()
	unsigned, err := connect(e, false)
	if err != nil {
		return err
	}
	defer unsigned.Close()
	fmt.Printf("writing %d records to %d tasks S-* (signed) and as many to U-* (unsigned) through the MCP servers, alternating\n", o.records, o.tasks)
	var ws, wu []time.Duration
	for i := 0; i < o.records; i++ {
		d, err := assess(signed, sig[i%o.tasks], i)
		if err != nil {
			return err
		}
		ws = append(ws, d)
		if d, err = assess(unsigned, uns[i%o.tasks], i); err != nil {
			return err
		}
		wu = append(wu, d)
	}
	ms, mu := harness.Median(ws), harness.Median(wu)
	fmt.Printf("MCP append, signed (ssh key in ssh-agent): median %v, p90 %v\n", ms.Round(time.Microsecond), harness.P90(ws).Round(time.Microsecond))
	fmt.Printf("MCP append, unsigned:                      median %v, p90 %v\n", mu.Round(time.Microsecond), harness.P90(wu).Round(time.Microsecond))
	fmt.Printf("signing adds %v per append (%.2fx)\n", (ms - mu).Round(time.Microsecond), float64(ms)/float64(mu))
	if err := e.run("git", "verify-commit", "refs/reasoning/tasks/"+sig[0]); err != nil {
		return fmt.Errorf("the signed task's head does not verify with git: %w", err)
	}
	// First verify: no verdict kept and no head remembered verified, as
	// in a fresh clone; then re-verify with both kept.
	cold := func() error {
		for _, p := range []string{"signatures", "verified.d"} {
			if err := os.RemoveAll(filepath.Join(repo, ".git", "reason", p)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := timeVerify(e, sig, uns, o.records, o.firstRuns, "first verify", cold); err != nil {
		return err
	}
	// The same with every signature left to git, as before the ssh fast
	// path: a gpg.ssh.program of the user's own turns it off.
	if o.gitRuns > 0 {
		if err := timeVerify(e, sig, uns, o.records, o.gitRuns, "first verify, every signature through git", cold, "-c", "gpg.ssh.program=ssh-keygen"); err != nil {
			return err
		}
		if err := whereTimeGoes(e, sig, o.gitRuns); err != nil {
			return err
		}
	}
	if err := timeVerify(e, sig, uns, o.records, o.runs, "re-verify", func() error { return nil }); err != nil {
		return err
	}
	// A pull brings a few new records: verify asks git about those only.
	const more = 10
	for i := 0; i < more; i++ {
		if _, err := assess(signed, sig[i%o.tasks], o.records+i); err != nil {
			return err
		}
		if _, err := assess(unsigned, uns[i%o.tasks], o.records+i); err != nil {
			return err
		}
	}
	return timeVerify(e, sig, uns, o.records+more, 1, fmt.Sprintf("verify after %d new records", more), func() error { return nil })
}

// timeVerify times whole-process 'git [pre...] reason verify' of the
// signed tasks and of the unsigned ones, alternating, runs times each,
// prepare run before each, and prints the medians of wall and CPU time
// (the process and the git and ssh-keygen processes it waited for) and
// their ratio.
func timeVerify(e env, sig, uns []string, records, runs int, what string, prepare func() error, pre ...string) error {
	var vs, vu, cs, cu []time.Duration
	for r := 0; r < runs; r++ {
		for _, tasks := range [][]string{sig, uns} {
			if err := prepare(); err != nil {
				return err
			}
			t, err := harness.Timed(e.cmd("git", append(append(append([]string{}, pre...), "reason", "verify"), tasks...)...))
			if err != nil {
				return fmt.Errorf("verify %s…: %w", tasks[0], err)
			}
			if tasks[0] == sig[0] {
				vs, cs = append(vs, t.Wall), append(cs, t.CPU)
			} else {
				vu, cu = append(vu, t.Wall), append(cu, t.CPU)
			}
		}
	}
	fmt.Printf("%s of %d signed records:   median wall %v, CPU %v\n", what, records, harness.Median(vs).Round(time.Millisecond), harness.Median(cs).Round(time.Millisecond))
	fmt.Printf("%s of %d unsigned records: median wall %v, CPU %v\n", what, records, harness.Median(vu).Round(time.Millisecond), harness.Median(cu).Round(time.Millisecond))
	fmt.Printf("%s signed/unsigned: wall %.2fx, CPU %.2fx (target: at most 2x)\n", what,
		float64(harness.Median(vs))/float64(harness.Median(vu)), float64(harness.Median(cs))/float64(harness.Median(cu)))
	return nil
}

// whereTimeGoes times git alone on every signed commit, runs times each,
// alternating: git log printing %G? etc. (ssh-keygen twice per commit),
// the same split between two concurrent git processes (option b: the
// per-history verifications run concurrently), and git log printing only
// the hash and author (what is left of git's work when the signatures are
// judged in this process), with git cat-file reading the commits.
func whereTimeGoes(e env, sig []string, runs int) error {
	var commits []string
	for _, t := range sig {
		out, err := e.cmd("git", "rev-list", "refs/reasoning/tasks/"+t).Output()
		if err != nil {
			return err
		}
		commits = append(commits, strings.Fields(string(out))...)
	}
	allowed := "gpg.ssh.allowedSignersFile=" + filepath.Join(filepath.Dir(e.dir), "allowed")
	logOf := func(format string, cs []string) *exec.Cmd {
		return e.cmd("git", append([]string{"-c", allowed, "log", "--no-walk=unsorted", format}, cs...)...)
	}
	half := len(commits) / 2
	ways := []struct {
		what string
		cmds func() []*exec.Cmd
	}{
		{"git log %G? (one process)", func() []*exec.Cmd { return []*exec.Cmd{logOf("--format=%H %G? %GK %GS", commits)} }},
		{"git log %G? (two concurrent processes)", func() []*exec.Cmd {
			return []*exec.Cmd{logOf("--format=%H %G? %GK %GS", commits[:half]), logOf("--format=%H %G? %GK %GS", commits[half:])}
		}},
		{"git log %H %an and git cat-file --batch (no signature checked)", func() []*exec.Cmd {
			cf := e.cmd("git", "cat-file", "--batch")
			cf.Stdin = strings.NewReader(strings.Join(commits, "\n") + "\n")
			return []*exec.Cmd{logOf("--format=%H %an <%ae>", commits), cf}
		}},
	}
	walls := make([][]time.Duration, len(ways))
	cpus := make([][]time.Duration, len(ways))
	for r := 0; r < runs; r++ {
		for i, w := range ways {
			cmds := w.cmds()
			start := time.Now()
			for _, c := range cmds {
				c.Stdout = io.Discard
				if err := c.Start(); err != nil {
					return err
				}
			}
			var cpu time.Duration
			for _, c := range cmds {
				if err := c.Wait(); err != nil {
					return fmt.Errorf("%s: %v", w.what, err)
				}
				ru := c.ProcessState.SysUsage().(*syscall.Rusage)
				cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			}
			walls[i], cpus[i] = append(walls[i], time.Since(start)), append(cpus[i], cpu)
		}
	}
	fmt.Printf("where the first verify's time goes, git alone on the %d signed commits:\n", len(commits))
	for i, w := range ways {
		fmt.Printf("  %s: median wall %v, CPU %v\n", w.what, harness.Median(walls[i]).Round(time.Millisecond), harness.Median(cpus[i]).Round(time.Millisecond))
	}
	return nil
}

// connect starts a resident 'git reason mcp' server, signing or not.
func connect(e env, sign bool) (*mcp.ClientSession, error) {
	c := e.cmd("git", "reason", "mcp")
	c.Env = append(append([]string{}, e.vars...), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=commit.gpgSign", fmt.Sprintf("GIT_CONFIG_VALUE_0=%t", sign))
	client := mcp.NewClient(&mcp.Implementation{Name: "sign-bench", Version: "1"}, nil)
	return client.Connect(context.Background(), &mcp.CommandTransport{Command: c}, nil)
}

// assess appends one trivial assessment to task and times the call.
func assess(cs *mcp.ClientSession, task string, i int) (time.Duration, error) {
	start := time.Now()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "assess", Arguments: map[string]any{
		"task": task, "subject": fmt.Sprintf("subject %d", i), "question": "Q?", "materiality": "trivial", "reversibility": "reversible"}})
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if res.IsError {
		return 0, fmt.Errorf("assess %s: %v", task, res.Content[0].(*mcp.TextContent).Text)
	}
	return d, nil
}
