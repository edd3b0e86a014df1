package ops

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestReadHookLines: the pre-push and pre-receive hooks' stdin is read a
// line a ref, blank lines skipped, each field in its place; a line of
// another number of fields is bad input (exit 2) naming the hook and the
// line.
func TestReadHookLines(t *testing.T) {
	push, err := ReadPushLines(strings.NewReader("refs/heads/a 1111 refs/heads/b 2222\n\n  \nHEAD 3333 refs/reasoning/tasks/T 0000\n"))
	if err != nil {
		t.Fatal(err)
	}
	wantPush := []PushLine{{"refs/heads/a", "1111", "refs/heads/b", "2222"}, {"HEAD", "3333", "refs/reasoning/tasks/T", "0000"}}
	if !reflect.DeepEqual(push, wantPush) {
		t.Errorf("pre-push lines %+v, want %+v", push, wantPush)
	}
	recv, err := ReadReceiveLines(strings.NewReader("0000 1111 refs/reasoning/tasks/T\n\n2222 3333 refs/heads/main\n"))
	if err != nil {
		t.Fatal(err)
	}
	wantRecv := []ReceiveLine{{"0000", "1111", "refs/reasoning/tasks/T"}, {"2222", "3333", "refs/heads/main"}}
	if !reflect.DeepEqual(recv, wantRecv) {
		t.Errorf("pre-receive lines %+v, want %+v", recv, wantRecv)
	}
	for _, c := range []struct {
		name string
		read func() error
		want string
	}{
		{"pre-push of three fields", func() error {
			_, err := ReadPushLines(strings.NewReader("refs/heads/a 1111 refs/heads/b\n"))
			return err
		}, `pre-push: unexpected input line "refs/heads/a 1111 refs/heads/b"`},
		{"pre-receive of four fields", func() error {
			_, err := ReadReceiveLines(strings.NewReader("0000 1111 refs/heads/main\n0000 1111 refs/heads/x extra\n"))
			return err
		}, `pre-receive: unexpected input line "0000 1111 refs/heads/x extra"`},
	} {
		err := c.read()
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrUsage) {
			t.Errorf("%s: got %v, want the usage error %q", c.name, err, c.want)
		}
	}
}
