//go:build unix

package harness

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// Alive reports whether process pid still runs, allowing it wait to
// finish dying (a process just sent a signal) and treating an unreaped
// zombie (whose new parent may be slow to reap it) as dead.
func Alive(pid int, wait time.Duration) bool {
	for end := time.Now().Add(wait); ; time.Sleep(10 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || zombie(pid) {
			return false
		}
		if time.Now().After(end) {
			return true
		}
	}
}

// zombie reports whether pid has ended and waits to be reaped, as Linux's
// /proc says (elsewhere: never).
func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}
