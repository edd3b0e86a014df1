package ops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/oklog/ulid/v2"

	"git-reason/advisor"
	"git-reason/gitstore"
	"git-reason/record"
)

// ErrUsage marks a mistake in how the tool was called or configured; the
// command line exits 2 on it.
var ErrUsage = errors.New("usage")

type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == ErrUsage || target == record.ErrInput }

// Usage returns an error that says what was wrong with the call.
func Usage(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// Options select how a Session is opened.
type Options struct {
	Dir     string // where to start looking for the repository; "" is "."
	Profile string // execution profile named on the command line
	// Warn receives one line per task that a read across every task
	// skipped because its history does not read; nil drops them.
	Warn func(line string)
}

// Session is one opened repository: its store, configuration and writer,
// and the declarations and profile read from it on first use. It lives for
// one command (or one MCP request).
type Session struct {
	Repo   *gitstore.Repo
	Store  *gitstore.Store
	Config *gitstore.Config
	Writer *record.Writer
	Index  gitstore.Index

	profileFlag string
	catalog     *advisor.Catalog
	findings    []advisor.Finding
	profile     *advisor.Profile
	chosenBy    string
	integ       *gitstore.Integrator // what pull verified, for the push after it
}

// Open locates the repository and prepares the writer. What only some
// commands need (identity, declarations, the profile) is read when first
// asked for, so the hot path of a write stays short.
func Open(ctx context.Context, opts Options) (*Session, error) {
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	repo, err := gitstore.Discover(dir)
	if err != nil {
		return nil, Usage("%v: run git reason inside a git repository (or set GIT_DIR)", err)
	}
	cfg, err := repo.Config()
	if err != nil {
		return nil, fmt.Errorf("read git config: %w", err)
	}
	store := gitstore.NewStore(repo)
	if opts.Warn != nil {
		store.OnSkip = func(task string, err error) { opts.Warn(skipWarning(task, err)) }
	}
	sess := &Session{Repo: repo, Store: store, Config: cfg, Index: gitstore.Index{Store: store}, profileFlag: opts.Profile}
	sess.Writer = &record.Writer{Store: store, Index: sess.Index, Avail: availability{sess}}
	return sess, nil
}

// Identify fills the writer's actor and origin; only writes need them.
func (e *Session) Identify() error {
	if e.Writer.Actor != "" {
		return nil
	}
	name := firstSet(os.Getenv("GIT_AUTHOR_NAME"), get(e.Config, "user.name"))
	email := firstSet(os.Getenv("GIT_AUTHOR_EMAIL"), get(e.Config, "user.email"), os.Getenv("EMAIL"))
	if name == "" || email == "" {
		return Usage("no identity: set it with git config user.name \"Your Name\" and git config user.email you@example.com")
	}
	origin := get(e.Config, "reason.origin")
	if origin == "" {
		var err error
		origin, err = e.Repo.SetLocalOnce("reason.origin", strings.ToLower(ulid.Make().String()))
		if err != nil {
			return fmt.Errorf("record this clone's origin id in git config: %w", err)
		}
	}
	e.Writer.Actor = name + " <" + email + ">"
	e.Writer.Origin = origin
	return nil
}

func get(c *gitstore.Config, key string) string {
	v, _ := c.Get(key)
	return v
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// skipWarning is the one line that says a task was left out, and how to
// look at it.
func skipWarning(task string, err error) string {
	cause := err
	var ue *record.UnreadableError
	if errors.As(err, &ue) {
		cause = ue.Err
	}
	return record.Printable(fmt.Sprintf("warning: skipped task %s, whose history does not read (%s): see 'git reason verify %s'",
		task, strings.ReplaceAll(cause.Error(), "\n", ";"), task))
}
