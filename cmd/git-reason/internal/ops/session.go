package ops

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/oklog/ulid/v2"

	"git-reason/advisor"
	"git-reason/cmd/git-reason/internal/settings"
	"git-reason/gitstore"
	"git-reason/gitstore/git"
	"git-reason/gitstore/integration"
	"git-reason/gitstore/signing"
	"git-reason/record"
)

// ErrUsage marks a mistake in how the tool was called or configured; the
// command line exits 2 on it.
var ErrUsage = errors.New("usage")

// usageError says what was wrong with the call; tools, when set, says it
// to the MCP tools (record.ToolAdvised), naming a tool or an argument
// where msg names a command or a flag of the command line.
type usageError struct{ msg, tools string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == ErrUsage || target == record.ErrInput }
func (e *usageError) ToolMessage() string  { return cmp.Or(e.tools, e.msg) }

// Usage returns an error that says what was wrong with the call.
func Usage(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// LatestID is the id of task's latest record of kind in st, for a
// command whose target defaults to it. With none, a closure is refused
// as the writer refuses a task reopened already (record.NotClosed), any
// other kind is a usage error (ErrUsage) saying where to look.
func LatestID(st *record.State, task string, kind record.Kind) (string, error) {
	if id := st.LatestID(kind); id != "" {
		return id, nil
	}
	if kind == record.KindClosure {
		return "", record.NotClosed(task)
	}
	none := fmt.Sprintf("task %s has no %s yet", task, kind)
	return "", usageAdvised(fmt.Sprintf("%s (see 'git reason status %s')", none, task), none+" (see status)")
}

// usageAdvised is Usage said two ways: cli to the command line, tools to
// the MCP tools.
func usageAdvised(cli, tools string) error { return &usageError{msg: cli, tools: tools} }

// Options select how a Session is opened.
type Options struct {
	Dir     string // where to start looking for the repository; "" is "."
	Profile string // execution profile named on the command line
	// Warn receives one line per task that a read across every task
	// skipped because its history does not read, and each of the
	// session's other warnings (an untrusted repository overlay or
	// allowed-signers file, a standing conclusion not reused), as the
	// command line says them; nil drops them.
	Warn func(line string)
	// Notify, when set, receives the same warnings said two ways
	// (record.Advice: the MCP tools take ToolMessage), in place of Warn.
	// What Warn is told once per session, Notify is told once per held
	// call (Hold): each result a resident session gives carries the
	// warnings about what it was computed under.
	Notify func(record.Advice)
	// Progress, when set, is told how far a read or verification across
	// every task has come (gitstore.Store.OnProgress).
	Progress func(what string, done, total int)
	// GitProgress, when set, is where git fetch's own progress goes
	// (gitstore.Repo.FetchProgress).
	GitProgress io.Writer
	// Resident marks a session that outlives one command (the MCP
	// server): its settings are read again when a configuration file
	// they came from changes.
	Resident bool
	// Surface is the surface the session serves, recorded in every
	// record it writes (record.SurfaceMCP, ...); "" is the command line.
	Surface string
	// Meanwhile, when set, is called once git's processes for discovery
	// (and the settings) are started, before Open waits for them: work
	// that overlaps with them, such as compiling the schemas a write
	// needs. It must return at once (start a goroutine).
	Meanwhile func()
	// Outside, when no repository is found, opens a session of none:
	// the shipped declarations and the user's, under the user's and the
	// system's git configuration, with no task, circuit or repository
	// overlay (InRepository is false). For the verbs that say what this
	// machine would do, such as advisors.
	Outside bool
}

// Session is one opened repository: its store and writer, and the
// settings, declarations and profile read from it on first use. It lives
// for one command (or one MCP request).
type Session struct {
	Repo   *gitstore.Repo
	Store  *gitstore.Store
	Writer *record.Writer
	Index  gitstore.Index

	profileFlag string
	resident    bool
	settings    *settings.Settings
	catalog     *advisor.Catalog
	// catalogFiles are the files catalog was read from, for a resident
	// session to read them again when they change (Catalog).
	catalogFiles settings.Watch
	findings     []advisor.Finding
	profile      *advisor.Profile
	chosenBy     string
	integ        *integration.Integrator // what pull verified, for the push after it
	warn         func(string)
	notify       func(record.Advice) // Options.Notify
	warned       bool                // the untrusted overlay's notice was given
	sigWarned    bool                // the untrusted allowed signers' notice was given (noticeSigners)
	sigLogsRead  int                 // signature logs noticeSummary read for it
	skips        atomic.Int64        // the skipped tasks skipWarner counted
	baseline     *baseline           // the last plan's snapshot without the repository overlay
	// baseCatalog is the declarations without the repository overlay,
	// loaded by the first plan that compares with them and kept as long
	// as catalog is (Catalog drops both).
	baseCatalog *advisor.Catalog
	// RemotesSetUp are the fetch refspecs SetupRemotes added.
	RemotesSetUp []string
	caughtUp     bool              // CatchUp found every tracking head integrated (SettleFetched)
	cloneHinted  bool              // CatchUp said the clone hint (pullHint need not say it again)
	catchingUp   sync.Mutex        // one CatchUpLive at a time
	noLockWait   bool              // CatchUp retries a failure: its integration takes no lock another process holds
	sigSum       string            // SignaturesDigest, once per command (sigcache.go)
	readSum      string            // readDigest, once per command or held request (sigcache.go)
	readKeyring  map[string]string // the keyring digests readSum covers, by format (openpgp, x509)
	readKept     *signing.Verdicts // the OpenPGP and X.509 verdicts kept under readKeyring, once read
	early        *settings.Early   // the settings listed beside discovery, until read
	// held is set between Hold and Release; settingsSeen and catalogSeen,
	// that the files of the settings and of the declarations were checked
	// since Hold.
	held, settingsSeen, catalogSeen bool
	// mirrorWarned: noteMirror said its line.
	mirrorWarned bool
}

// Hold begins a request of a resident session (the MCP server holds one
// for each call it serves): until Release, the files the settings and
// the declarations were read from are checked for a change once each, at
// their first use, instead of at every use, and what read surfaces keep
// signatures under (readDigest) is found once. One request then sees one
// configuration, and stats those files once: an assessment through the
// server asked the settings six times, five stats each.
func (e *Session) Hold() {
	e.held, e.settingsSeen, e.catalogSeen, e.readSum = true, false, false, ""
	if e.notify != nil {
		e.warned, e.sigWarned, e.sigLogsRead = false, false, 0 // said again to this call (Options.Notify)
		e.skips.Store(0)
		if e.Store != nil {
			e.Store.SkipAgain()
		}
	}
}

// Release ends what Hold began: every use checks the files again.
func (e *Session) Release() {
	e.held, e.settingsSeen, e.catalogSeen, e.readSum = false, false, false, ""
}

// Open locates the repository and prepares the writer. What only some
// commands need (identity, declarations, the profile) is read when first
// asked for. The settings are listed while git discovers the repository
// (every command of the command line reads them: the limits of reading a
// task are settings); a resident session reads them when first asked.
func Open(ctx context.Context, opts Options) (*Session, error) {
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	// A command's settings are listed beside discovery, not after it
	// (settings.Early); a resident session lists them again when a file
	// they came from changes, so it lists them as Load does.
	var early *settings.Early
	if !opts.Resident {
		early = settings.StartEarly(dir)
	}
	if opts.Meanwhile != nil {
		opts.Meanwhile()
	}
	// Git decides which repository this is, and refuses one owned by
	// another user (safe.directory) before anything of it is read.
	repo, err := gitstore.Discover(dir)
	if err != nil && early != nil {
		early.Wait() // what it listed is not used
	}
	switch {
	case errors.Is(err, gitstore.ErrRefused):
		return nil, Refused("%v", err)
	case errors.Is(err, gitstore.ErrNotRepository) && opts.Outside && os.Getenv("GIT_DIR") == "":
		// (A GIT_DIR that names no repository is a mistake to report.)
		return &Session{Repo: &gitstore.Repo{}, profileFlag: opts.Profile, warn: opts.Warn, notify: opts.Notify}, nil
	case errors.Is(err, gitstore.ErrNotRepository) && os.Getenv("GIT_DIR") != "":
		// Advice to set GIT_DIR would be advice to do what was done.
		return nil, Usage("%v: GIT_DIR names no repository: unset it, or set it to a repository's git directory", err)
	case errors.Is(err, gitstore.ErrNotRepository):
		return nil, Usage("%v: run git reason inside a git repository (or set GIT_DIR)", err)
	case git.KilledBy(err) != 0:
		return nil, err // a signal (Ctrl-C, a supervisor's SIGTERM) reached git first
	case err != nil:
		// A repository git found but cannot read (a bad config line):
		// git's message says what to fix.
		return nil, Usage("%s", badConfigAdvice(err))
	}
	// What a read creates under the git directory (its caches) is shared
	// as git shares its own, though it may never read the rest of the
	// settings: from the early listing, or, for a command that lists them
	// later, from a listing of its own where the repository may be shared
	// (git.MayShare), the first time it creates a file there.
	if early != nil {
		git.ShareLater(repo.CommonDir, early.SharedRepository)
	} else {
		git.ShareLater(repo.CommonDir, func() gitstore.SharedPerm {
			if !git.MayShare(repo.CommonDir) {
				return gitstore.SharedUmask
			}
			st, err := settings.Load(context.Background(), repo.GitDir, settings.Flags{})
			if err != nil {
				return gitstore.SharedUmask
			}
			return st.SharedRepository
		})
	}
	store := gitstore.NewStore(repo)
	sess := &Session{Repo: repo, Store: store, Index: gitstore.Index{Store: store}, profileFlag: opts.Profile, resident: opts.Resident, warn: opts.Warn, notify: opts.Notify, early: early}
	if sess.listening() {
		store.OnSkip = skipWarner(sess.say, &sess.skips)
	}
	store.OnProgress = opts.Progress
	repo.RefLog = sess
	repo.FetchProgress = opts.GitProgress
	store.Limits = sess.readLimits
	store.Promisors = sess.promisorRemotes
	// Vouch: a standing conclusion is reused only from a task whose
	// history replays clean at that moment.
	surface := opts.Surface
	if surface == "" {
		surface = record.SurfaceCLI
	}
	// Keep: a resident session's next append on a task goes on from the
	// state its last append left, when no one else appended since.
	sess.Writer = &record.Writer{Store: store, Index: sess.Index, Avail: availability{sess}, Vouch: store, Surface: surface, Keep: opts.Resident}
	// Authors: and only when its authors are trusted (authors.go), saying
	// why not otherwise.
	sess.Writer.Authors = authors{sess}
	// Checkout: an assessment with file evidence names the commit its
	// files are read at for a question (material.go).
	sess.Writer.Checkout = sess.HeadCommit
	if sess.listening() {
		sess.Writer.NotReused = func(line string) { sess.say(record.Advice{CLI: record.Printable(line)}) }
	}
	return sess, nil
}

// setIdentity says how the identity a write needs is set: git config,
// which to the MCP tools is the person's step (no tool sets it).
var setIdentity = record.Advice{
	CLI:   "set it with git config user.name \"Your Name\" and git config user.email you@example.com",
	Tools: "the person sets it with git config user.name \"Your Name\" and git config user.email you@example.com (no tool sets it)"}

// listening reports whether the session's warnings go anywhere
// (Options.Warn or Options.Notify).
func (e *Session) listening() bool { return e.warn != nil || e.notify != nil }

// say gives a warning: to Notify as it is, else to Warn as the command
// line says it.
func (e *Session) say(a record.Advice) {
	switch {
	case e.notify != nil:
		e.notify(a)
	case e.warn != nil:
		e.warn(a.String())
	}
}

// InRepository reports whether the session is of a repository; false for
// one Options.Outside opened outside any.
func (e *Session) InRepository() bool { return e.Store != nil }

// readLimits are the configured limits on reading histories; the
// defaults when the configuration does not read (the command that reads
// it says why).
func (e *Session) readLimits() gitstore.ReadLimits {
	st, err := e.Settings()
	if err != nil {
		return gitstore.DefaultReadLimits
	}
	return gitstore.ReadLimits{TaskBytes: st.MaxTaskBytes, PullBytes: st.MaxPullBytes}
}

// RefLogging is how the session's ref updates are logged
// (gitstore.Repo.RefLog): by the actor, the committer of a record's
// commit, or git's default identity when none is configured, as
// core.logAllRefUpdates says; not at all when the
// configuration does not read (the command that reads it says why).
func (e *Session) RefLogging() gitstore.RefLogging {
	st, err := e.Settings()
	if err != nil {
		return gitstore.RefLogging{}
	}
	return gitstore.RefLogging{Always: st.LogAllRefs, Ident: st.Actor.OrDefault().String()}
}

// promisorRemotes are the promisor remotes of the configuration the
// command listed (gitstore.Store.Promisors).
func (e *Session) promisorRemotes() ([]string, error) {
	st, err := e.Settings()
	if err != nil {
		return nil, err
	}
	return st.PromisorRemotes, nil
}

// Settings reads git configuration and the environment on first use
// (one git process) and returns the same value afterwards; a resident
// session reads again when a file the value came from changed (checked
// once in a request it holds: Hold), and forgets what it derived from the
// old value (the profile, the identity).
func (e *Session) Settings() (*settings.Settings, error) {
	if e.settings != nil && (!e.resident || e.settingsSeen || !e.settings.Changed()) {
		e.settingsSeen = e.held
		return e.settings, nil
	}
	var st *settings.Settings
	var err error
	if early := e.early; early != nil {
		e.early = nil
		st, err = early.Load(context.Background(), e.Repo.GitDir, settings.Flags{Profile: e.profileFlag})
	} else {
		st, err = settings.Load(context.Background(), e.Repo.GitDir, settings.Flags{Profile: e.profileFlag})
	}
	if errors.Is(err, settings.ErrBadValue) {
		return nil, Usage("%s", err) // bad input, as a bad flag is
	}
	if err != nil {
		return nil, err
	}
	if old := e.settings; old != nil {
		e.profile, e.chosenBy = nil, ""
		e.catalog = nil // its files may be others now (Catalog)
		if old.Actor != st.Actor || old.Origin != st.Origin || old.Signing != st.Signing {
			// Identify fills them again from these; while they are the
			// same, a write already identified keeps its identity.
			e.Writer.Actor, e.Writer.Origin = "", ""
		}
	}
	e.settings = st
	e.settingsSeen = e.held
	// Every write reads settings first: what it creates (objects, refs,
	// the files under .git/reason/) is shared as git shares its own.
	git.ShareUnder(e.Repo.CommonDir, st.SharedRepository)
	return st, nil
}

// Identify fills the writer's actor and origin; only writes need them.
// The first write of a clone records its origin in git config.
func (e *Session) Identify() error { return e.identify(false) }

// IdentifyWriter is Identify for a write of a caller's body: a clone's
// first records its origin only once the writer has admitted the record
// (record.Writer.NewOrigin), so that a body it refuses writes nothing.
func (e *Session) IdentifyWriter() error { return e.identify(true) }

func (e *Session) identify(deferOrigin bool) error {
	st, err := e.Settings() // first: a resident session may read again
	if err != nil {
		return err
	}
	if f := e.Repo.ObjectFormat; f != "" && f != "sha1" {
		// The store writes SHA-1 objects and refs, which git would not
		// read here; reading (an empty list, the hooks) goes on.
		return Refused("%s names its objects with %s (extensions.objectFormat): git reason stores records in SHA-1 repositories only", e.Repo.CommonDir, f)
	}
	if e.Writer.Actor != "" && (e.Writer.Origin != "" || deferOrigin) {
		return nil
	}
	actor := st.Actor.String()
	if actor == "" {
		return errNoIdentity()
	}
	if st.Origin == "" && !deferOrigin {
		if _, err := e.newOrigin(); err != nil {
			return err
		}
		if st, err = e.Settings(); err != nil {
			return err
		}
	}
	if err := e.setSigner(st, actor); err != nil {
		return err
	}
	e.Writer.Actor = actor
	e.Writer.Origin = st.Origin
	e.Writer.NewOrigin = e.newOrigin
	return nil
}

func errNoIdentity() error {
	return usageAdvised("no identity: "+setIdentity.CLI, "no identity: "+setIdentity.Tools)
}

// RequireIdentity refuses as a write without an identity is refused; a
// write verb asks before its catch-up, which writes under .git/reason/:
// a write refused for bad input writes nothing.
func (e *Session) RequireIdentity() error {
	st, err := e.Settings()
	if err != nil {
		return err
	}
	if st.Actor.String() == "" {
		return errNoIdentity()
	}
	return nil
}

// newOrigin records a new origin for this clone in git config, unless
// another process recorded one first, and returns the origin in force.
func (e *Session) newOrigin() (string, error) {
	origin, err := settings.SetOrigin(context.Background(), e.Repo.GitDir, e.Repo.CommonDir, strings.ToLower(ulid.Make().String()))
	if err != nil {
		return "", err
	}
	if e.resident {
		// Its own write changed the configuration: read it again now,
		// or the next Settings would, and forget the identity in the
		// middle of this write.
		e.settings = nil
	}
	st, err := e.Settings()
	if err != nil {
		return "", err
	}
	st.Origin = origin
	return origin, nil
}

// skippedLines is how many skipped tasks a session names one line
// each: fetched refs from elsewhere may hold thousands of tasks whose
// histories do not read, and a line for each would bury every command's
// output under them.
const skippedLines = 10

// skipWarner is a session's Store.OnSkip: a warning line for each of the
// first skippedLines tasks that do not read, then one line saying that
// the rest are skipped without one, and nothing more, counting in
// skipped. The store calls it once a task, from any goroutine: once a
// command, and in a session with Options.Notify once a held call (Hold
// sets skipped to zero and the store forgets what it told), so that a
// resident session says them to each call that reads the tasks, not to
// its first alone.
func skipWarner(warn func(record.Advice), skipped *atomic.Int64) func(task string, err error) {
	return func(task string, err error) {
		switch n := skipped.Add(1); {
		case n <= skippedLines:
			warn(skipWarning(task, err))
		case n == skippedLines+1:
			const more = "warning: more tasks whose history does not read are skipped, without a line each: "
			warn(record.Advice{CLI: more + "'git reason verify' names every one", Tools: more + "the verify tool (no tasks) names every one"})
		}
	}
}

// skipWarning is the one line that says a task was left out, and how to
// look at it.
func skipWarning(task string, err error) record.Advice {
	cause := err
	var ue *record.UnreadableError
	if errors.As(err, &ue) {
		cause = ue.Err
	}
	said := func(cause string) string {
		return fmt.Sprintf("warning: skipped task %s, whose history does not read (%s): ", task, strings.ReplaceAll(cause, "\n", ";"))
	}
	tasks, _ := json.Marshal([]string{task})
	// The tools' line says the cause's advice in their terms too
	// (record.ToolText): raising reason.maxTaskBytes is the person's step.
	return record.Advice{CLI: record.Printable(fmt.Sprintf("%ssee 'git reason verify %s'", said(cause.Error()), task)),
		Tools: record.Printable(fmt.Sprintf("%ssee the verify tool (tasks: %s)", said(record.ToolText(cause)), tasks))}
}

// HeadCommit is the commit HEAD names, "" on an unborn branch: read from
// HEAD and the ref it names, as git does, with no git process (an
// assessment, a question and a validation each ask); git rev-parse
// answers when the refs do not say (another ref storage).
func (e *Session) HeadCommit(ctx context.Context) string {
	if c, err := e.Repo.ReadRef("HEAD"); err == nil && c != "" {
		return c
	}
	c, _ := e.git(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	return c
}

// badConfigAdvice is err, from git, with what to do when git refused a
// configuration value (color.pager=maybe): its own message said only
// "fatal: bad boolean config value 'maybe' for 'color.pager'", not
// where the value is or what the key takes.
func badConfigAdvice(err error) string {
	msg := err.Error()
	for kind, takes := range map[string]string{"boolean": "true or false", "numeric": "a number"} {
		// git: "bad boolean config value 'maybe' for 'color.pager'"
		_, rest, ok := strings.Cut(msg, "bad "+kind+" config value '")
		value, rest, ok2 := strings.Cut(rest, "' for '")
		key, _, ok3 := strings.Cut(rest, "'")
		if ok && ok2 && ok3 {
			return fmt.Sprintf("git config %s: bad value '%s': set it to %s where it is set (git config --show-origin --get-all %s)", key, value, takes, key)
		}
	}
	return msg
}
