package gitstore

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"git-reason/gitstore/git"
)

// TestSkipNotForASignal: a task whose read a signal cut short (Ctrl-C
// reached the git cat-file reading it) is not reported as a history that
// does not read; one that does not read is, once.
func TestSkipNotForASignal(t *testing.T) {
	var told []string
	s := &Store{OnSkip: func(task string, err error) { told = append(told, task) }}
	s.Skip("T", fmt.Errorf("records/x.json: read blob 00: read git cat-file: EOF: %w", &git.Error{Args: []string{"cat-file"}, Code: -1, Signal: syscall.SIGINT}))
	s.Skip("U", errors.New("read git cat-file: EOF"))
	s.Skip("U", errors.New("read git cat-file: EOF"))
	if fmt.Sprint(told) != "[U]" {
		t.Errorf("reported %v, want [U]: T's read was cut short by SIGINT", told)
	}
}
