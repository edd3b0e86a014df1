package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"git-reason/record"
)

// page sends the verb's output through the pager git would use, as git
// pages its own long output: only when stdout is a terminal, never for
// JSON, not under --no-pager (git --no-pager reason sets GIT_PAGER=cat,
// which reads as no pager), not when pager.reason is false, and not when
// git already started one (GIT_PAGER_IN_USE). The returned function
// closes the pager and waits for it; call it once the output is written.
func (b *base) page(c *cli.Context) func() {
	none := func() {}
	// Text output is filtered by a printableWriter; the pager goes
	// underneath it, so what reaches the pager is filtered too.
	pw, wrapped := b.Out.(*printableWriter)
	f := terminal(unfiltered(b.Out))
	if f == nil || b.JSON || gitPagerInUse() {
		return none
	}
	for _, l := range c.Lineage() {
		if l.Bool("no-pager") {
			return none
		}
	}
	sess, err := b.Open()
	if err != nil {
		return none
	}
	st, err := sess.Settings()
	if err != nil || st.Pager.Command == "" || (st.Pager.Reason != nil && !*st.Pager.Reason) {
		return none
	}
	if !startable(st.Pager.Command, b.Err) {
		return none
	}
	cmd := exec.Command("/bin/sh", "-c", st.Pager.Command)
	cmd.Stdout, cmd.Stderr = f, b.Err
	cmd.Env = append(os.Environ(), "GIT_PAGER_IN_USE=true")
	// git's defaults, for a variable that is not set (setenv without
	// overwriting): one set empty stays empty, the user's way to give
	// less no options.
	for _, kv := range [][2]string{{"LESS", "FRX"}, {"LV", "-c"}} {
		if _, set := os.LookupEnv(kv[0]); !set {
			cmd.Env = append(cmd.Env, kv[0]+"="+kv[1])
		}
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return none
	}
	if err := cmd.Start(); err != nil {
		return none
	}
	pipe := pagerPipe{in}
	if wrapped {
		pw.w = pipe
	} else {
		b.Out = pipe
	}
	return func() {
		_ = in.Close()
		_ = cmd.Wait()
		if wrapped {
			pw.w = f
		} else {
			b.Out = f
		}
	}
}

// startable reports whether the pager can be started, as git finds out
// starting it: a command of one word (no shell metacharacter, git's
// list) git runs itself, and one that is not there is an error git
// reports before writing its output to the terminal unpaged. Through the
// shell, a mistyped pager printed the shell's "not found" and nothing
// else, and the command exited 141.
//
// A command of plain words ("less -R", "delta --dark"), which git hands
// to the shell, is looked up by its first word the same way: through the
// shell a missing one said "/bin/sh: 1: delta: not found" and the output
// was lost (git's too, exit 141), where it is said as git says a missing
// one-word pager and the output is written unpaged. The shell's own
// words (exec, command, a builtin) are left to it.
func startable(pager string, stderr io.Writer) bool {
	if strings.ContainsAny(pager, "|&;<>()$`\\\"'\n*?[#~=%") {
		return true
	}
	words := strings.Fields(pager)
	if len(words) == 0 || len(words) > 1 && slices.Contains(shellWords[:], words[0]) {
		return true
	}
	_, err := exec.LookPath(words[0])
	if err == nil {
		return true
	}
	why := "No such file or directory"
	if errors.Is(err, fs.ErrPermission) {
		why = "Permission denied"
	}
	fmt.Fprintf(stderr, "error: cannot run %s: %s\n", record.Printable(words[0]), why)
	return false
}

// shellWords are the first words of a command that the shell runs
// itself, not a program found on PATH: its keywords and the builtins a
// pager command may start with.
var shellWords = [...]string{"exec", "command", "eval", "env", "builtin", "nohup", "time", "!", "{",
	"if", "while", "until", "for", "case", "echo", "printf", "test", "read", "cd", ".", ":", "true", "false", "exit", "set", "export"}

// gitPagerInUse reports whether git started a pager that this process's
// stdout goes to (git -p, pager.reason), as git's pager_in_use reads
// GIT_PAGER_IN_USE: a boolean.
func gitPagerInUse() bool {
	switch strings.ToLower(os.Getenv("GIT_PAGER_IN_USE")) {
	case "", "false", "no", "off", "0":
		return false
	}
	return true
}

// pagerPipe is the pager's input. Once the pager has exited (its reader
// quit it before the end), a write fails as a closed pipe, and the
// command stops as git's own do when their pager is quit: quietly, with
// the status of a process a closed pipe ended (141), where it said
// "write |1: broken pipe" and exited 1.
type pagerPipe struct{ w io.WriteCloser }

func (p pagerPipe) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		return n, quietExit(141)
	}
	return n, err
}
