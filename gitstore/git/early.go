package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Started is a git command started by Early (or Then), running or done.
type Started struct {
	key   []string      // what Run compares (c.key()); nil when Then started nothing
	keyed chan struct{} // closed once key is set
	done  chan struct{} // closed once out and err are set
	out   []byte
	err   error
}

// early holds the commands Early and Then started that no Run has taken
// yet.
var early struct {
	sync.Mutex
	started []*Started
}

// Early starts c now, in the background, and returns at once: the first
// Run of an equal command (the same directory, options, arguments and
// environment, no standard input) then waits for this one and returns
// its result instead of starting git again. A program starts early what
// it is certain to run first (discovery, its settings), so that git's
// time overlaps the program's own start-up instead of following it; a
// command no Run takes is wasted, never wrong: git answers what it would
// have answered a moment later, and nothing started this way writes.
func Early(c Cmd) *Started {
	s := pending()
	s.start(c)
	return s
}

// Then starts, once s has ended, the command next makes of s's result,
// as Early does; next returns false for none. A Run asked meanwhile waits
// until next has answered, so that it never starts a second git beside
// the one next starts.
func (s *Started) Then(next func(out []byte, err error) (Cmd, bool)) *Started {
	t := pending()
	go func() {
		c, ok := next(s.Wait())
		if !ok {
			close(t.keyed)
			return
		}
		t.start(c)
	}()
	return t
}

// Wait waits for the command to end and returns what Run would have.
// It does not take the command: a Run of an equal command still does.
func (s *Started) Wait() ([]byte, error) {
	<-s.done
	return s.out, s.err
}

func pending() *Started {
	s := &Started{keyed: make(chan struct{}), done: make(chan struct{})}
	early.Lock()
	early.started = append(early.started, s)
	early.Unlock()
	return s
}

func (s *Started) start(c Cmd) {
	s.key = c.key()
	close(s.keyed)
	go func() {
		defer close(s.done)
		s.out, s.err = c.run(context.Background())
	}()
}

// takeEarly returns the command Early or Then started that c equals,
// once, or nil.
func takeEarly(c Cmd) *Started {
	if c.Stdin != nil {
		return nil
	}
	early.Lock()
	started := slices.Clone(early.started)
	early.Unlock()
	if len(started) == 0 {
		return nil
	}
	key := c.key()
	for _, s := range started {
		<-s.keyed
		if s.key == nil || !slices.Equal(s.key, key) {
			continue
		}
		early.Lock()
		i := slices.Index(early.started, s)
		if i >= 0 {
			early.started = slices.Delete(early.started, i, i+1)
		}
		early.Unlock()
		if i >= 0 {
			return s
		}
	}
	return nil
}

// key is what makes two commands the same git invocation: the absolute
// directory it runs in, its options and arguments, and its whole
// environment.
func (c Cmd) key() []string {
	dir := c.Dir
	if !filepath.IsAbs(dir) {
		wd, _ := os.Getwd()
		dir = filepath.Join(wd, dir)
	}
	key := append([]string{dir, "\x00"}, c.Global...)
	key = append(append(key, "\x00"), c.Args...)
	return append(append(key, "\x00"), c.env()...)
}

// env is the command's whole environment: Env with its additions, less
// what it unsets.
func (c Cmd) env() []string {
	env := Env(c.Env...)
	for _, k := range c.Unset {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") })
	}
	return env
}

// Discovery is what Discover learnt of the repository.
type Discovery struct {
	GitDir, CommonDir, WorkTree string // WorkTree is "" when bare
}

// DiscoverCmd is the command Discover runs in dir: one git rev-parse, run
// with the caller's environment. --show-toplevel comes last: with no work
// tree (a bare repository, or inside a git dir) git prints the
// directories and then fails on it alone.
func DiscoverCmd(dir string) Cmd {
	return Cmd{Dir: dir, Args: []string{"rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--show-toplevel"}}
}

// Discovered reads DiscoverCmd's result: the repository, or false when
// git found none it would use (the error is then the caller's to read).
func Discovered(out []byte, err error) (Discovery, bool) {
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	switch {
	case err == nil && len(lines) == 3:
		return Discovery{GitDir: lines[0], CommonDir: lines[1], WorkTree: lines[2]}, true
	case err != nil && len(lines) == 2 && bareStderr(err):
		return Discovery{GitDir: lines[0], CommonDir: lines[1]}, true
	}
	return Discovery{}, false
}

func bareStderr(err error) bool {
	var ge *Error
	return errors.As(err, &ge) && strings.Contains(ge.Stderr, "must be run in a work tree")
}
