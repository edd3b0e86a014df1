package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"git-reason/gitstore/git"
)

var (
	// ErrStale is wrapped by UpdateRef when the ref's value is not oldHash.
	ErrStale = errors.New("ref moved")
	// ErrLocked is wrapped when a lock file could not be taken in time.
	ErrLocked = git.ErrLocked
	// ErrBadRefName is wrapped by CheckRefName for a name git would refuse.
	ErrBadRefName = errors.New("invalid ref name")
)

// RefConflictError is git's refusal of a ref that is a directory prefix of
// an existing one, or has one as its own (refs/a and refs/a/b cannot both
// exist: one would be a file where the other needs a directory). Its text
// is git's own.
type RefConflictError struct {
	Name     string // the ref that could not be created
	Existing string // the ref in its way
}

func (e *RefConflictError) Error() string {
	return fmt.Sprintf("cannot lock ref '%s': '%s' exists; cannot create '%s'", e.Name, e.Existing, e.Name)
}

// RefConflict returns the *RefConflictError that creating name would meet,
// or nil when no existing ref is in its way.
func (r *Repo) RefConflict(name string) error {
	if other := r.conflictingRef(name); other != "" {
		return &RefConflictError{Name: name, Existing: other}
	}
	return nil
}

// Ref is a reference and the object id it points to (40 hex digits).
type Ref struct{ Name, Hash string }

// lockTimeout bounds how long a lock held by someone else is waited for.
var lockTimeout = git.Wait

// maxSymrefDepth matches git's limit on chains of symbolic refs.
const maxSymrefDepth = 5

// ReadRef returns the value of the ref name (40 hex), or "" when it does not
// exist. The loose ref file is read before packed-refs, as git does, so a
// concurrent `git pack-refs` cannot hide the ref; a symbolic ref
// ("ref: refs/…") is followed. name is a full ref name or HEAD.
func (r *Repo) ReadRef(name string) (string, error) {
	countRefRead()
	for range maxSymrefDepth {
		if name != "HEAD" {
			if err := CheckRefName(name); err != nil {
				return "", err
			}
		}
		hash, target, err := r.readLoose(name)
		if err != nil {
			return "", err
		}
		if target != "" {
			name = target
			continue
		}
		if hash != "" || name == "HEAD" {
			return hash, nil
		}
		return r.PackedRef(name)
	}
	return "", fmt.Errorf("read ref %s: symbolic refs nested too deep", name)
}

// refPath is where the loose file of name lives: per-worktree refs in
// GitDir, everything else in CommonDir.
func (r *Repo) refPath(name string) string {
	for _, p := range []string{"refs/worktree/", "refs/bisect/", "refs/rewritten/"} {
		if strings.HasPrefix(name, p) {
			return filepath.Join(r.GitDir, name)
		}
	}
	if name == "HEAD" {
		return filepath.Join(r.GitDir, name)
	}
	return filepath.Join(r.CommonDir, filepath.FromSlash(name))
}

// readLoose reads the loose file of name: its hash, or the target of a
// symbolic ref. Both are "" when there is no loose file.
func (r *Repo) readLoose(name string) (hash, target string, err error) {
	data, err := os.ReadFile(r.refPath(name))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("read ref %s: %w", name, err)
	}
	hash, target, err = parseLoose(name, data)
	var b *BrokenRefError
	if errors.As(err, &b) {
		b.Path = r.refPath(name)
	}
	return hash, target, err
}

// BrokenRefError is a loose ref file that holds neither an object id
// nor a symbolic ref. git leaves such a ref out of its listings
// ("warning: ignoring broken ref") and refuses to read it; a listing
// here leaves it out too (ListRefsBroken says which), and ReadRef
// returns this error.
type BrokenRefError struct {
	Name    string // the ref
	Path    string // its loose file
	Content string // what the file holds, without the final newline (its first 64 bytes)
}

func (e *BrokenRefError) Error() string {
	return fmt.Sprintf("read ref %s: broken loose ref %q", e.Name, e.Content)
}

// maxBrokenShown is how much of a broken loose file an error quotes.
const maxBrokenShown = 64

func parseLoose(name string, data []byte) (hash, target string, err error) {
	s := strings.TrimRight(string(data), "\n")
	if t, ok := strings.CutPrefix(s, "ref:"); ok {
		return "", strings.TrimSpace(t), nil
	}
	if len(s) != 40 || !isHex(s) {
		if len(s) > maxBrokenShown {
			s = s[:maxBrokenShown]
		}
		return "", "", &BrokenRefError{Name: name, Content: s}
	}
	return strings.ToLower(s), "", nil
}

// PackedRef returns name's value in packed-refs alone ("" when absent),
// whatever its loose file says: a binary search of the mapped file.
func (r *Repo) PackedRef(name string) (string, error) {
	p, err := r.packed()
	if err != nil {
		return "", err
	}
	return p.lookup(name)
}

// ListRefs returns every ref whose name starts with prefix (for example
// "refs/reasoning/tasks/") with its value, sorted by name: the union of
// loose refs and packed-refs, loose winning. Loose refs are read before
// packed-refs so that a concurrent `git pack-refs` cannot hide a ref. A
// ref whose loose file is broken is left out, its packed value too, as
// git lists refs.
func (r *Repo) ListRefs(prefix string) ([]Ref, error) {
	refs, _, _, err := r.listRefs(prefix)
	return refs, err
}

// ListRefsBroken is ListRefs that also returns the refs it left out
// because their loose file is broken, for a reader that reports them.
func (r *Repo) ListRefsBroken(prefix string) (refs []Ref, broken []*BrokenRefError, err error) {
	refs, _, broken, err = r.listRefs(prefix)
	return refs, broken, err
}

// ListRefsLoose is ListRefs that also returns, from the same reading, the
// refs that have a loose file (in the order of a directory walk).
func (r *Repo) ListRefsLoose(prefix string) (refs, loose []Ref, err error) {
	refs, loose, _, err = r.listRefs(prefix)
	return refs, loose, err
}

// listRefs is ListRefs with the loose refs and the broken ones.
func (r *Repo) listRefs(prefix string) (refs, loose []Ref, broken []*BrokenRefError, err error) {
	loose, broken, err = r.looseRefs(prefix)
	if err != nil {
		return nil, nil, nil, err
	}
	vals := make(map[string]string, len(loose))
	for _, l := range loose {
		vals[l.Name] = l.Hash
	}
	var hidden map[string]bool // broken loose files hide their packed values
	for _, b := range broken {
		if hidden == nil {
			hidden = make(map[string]bool, len(broken))
		}
		hidden[b.Name] = true
	}
	p, err := r.packed()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list refs %s: %w", prefix, err)
	}
	// The packed refs come sorted: the list is sorted again only when a
	// loose ref is not among them.
	packed, err := p.list(prefix)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list refs %s: %w", prefix, err)
	}
	refs = make([]Ref, 0, len(packed)+len(vals))
	for _, r := range packed {
		if hidden[r.Name] {
			continue
		}
		if len(vals) > 0 {
			if h, loose := vals[r.Name]; loose {
				r.Hash = h
				delete(vals, r.Name)
			}
		}
		refs = append(refs, r)
	}
	for n, h := range vals {
		refs = append(refs, Ref{n, h})
	}
	if len(vals) > 0 {
		sort.Slice(refs, func(i, j int) bool { return refs[i].Name < refs[j].Name })
	}
	countRefsListed(len(refs))
	return refs, loose, broken, nil
}

// LooseRefs returns the refs whose name starts with prefix that have a
// loose file, with their values, in the order of a directory walk (sorted
// by path): what git and git reason moved since git last packed the refs.
// It reads no packed-refs, and leaves out a broken loose file.
func (r *Repo) LooseRefs(prefix string) ([]Ref, error) {
	refs, _, err := r.looseRefs(prefix)
	return refs, err
}

// looseRefs is LooseRefs with the broken loose files it left out.
func (r *Repo) looseRefs(prefix string) (refs []Ref, broken []*BrokenRefError, err error) {
	root := filepath.Join(r.CommonDir, filepath.FromSlash(prefix))
	if !strings.HasSuffix(prefix, "/") {
		root = filepath.Dir(root)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // vanished under a concurrent pack-refs
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		rel, err := filepath.Rel(r.CommonDir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if !strings.HasPrefix(name, prefix) || CheckRefName(name) != nil {
			return nil
		}
		hash, err := r.ReadRef(name)
		var b *BrokenRefError
		if errors.As(err, &b) {
			broken = append(broken, &BrokenRefError{Name: name, Path: b.Path, Content: b.Content})
			return nil
		}
		if err != nil {
			return err
		}
		if hash != "" {
			refs = append(refs, Ref{name, hash})
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list refs %s: %w", prefix, err)
	}
	return refs, broken, nil
}

// UpdateRef sets the ref name to newHash only if its current value is
// oldHash ("" meaning it must not exist), following git's lockfile protocol:
// <ref>.lock is created exclusively (retrying for up to about ten seconds,
// then ErrLocked), the current value is checked against the loose and the
// packed ref (ErrStale on mismatch), and the new value is written to the
// lock, synced and renamed into place. Readers never see a partial ref; on
// any failure the ref is unchanged and the lock removed. name must pass
// CheckRefName and lie under refs/; a ref in the way of its name is a
// *RefConflictError.
func (r *Repo) UpdateRef(name, oldHash, newHash string) error {
	return r.UpdateRefContext(context.Background(), name, oldHash, newHash, "")
}

// UpdateRefContext is UpdateRef whose wait for a lock another process
// holds also ends with ctx (a server told to stop, a client that
// cancelled its call): the error then wraps ctx's, the ref unchanged.
// msg is the message of the line the ref's log gets (Repo.RefLog).
func (r *Repo) UpdateRefContext(ctx context.Context, name, oldHash, newHash, msg string) error {
	return r.UpdateRefWait(ctx, name, oldHash, newHash, msg, lockTimeout)
}

// UpdateRefWait is UpdateRefContext that waits at most wait for a lock
// another process holds (0: it fails at once with ErrLocked).
func (r *Repo) UpdateRefWait(ctx context.Context, name, oldHash, newHash, msg string, wait time.Duration) error {
	held, err := r.LockRef(ctx, name, oldHash, newHash, msg, wait)
	if err != nil {
		return err
	}
	return held.Place()
}

// HeldRef is a ref update taken up to its rename (LockRef): the ref's
// lock holds the new value, synced, and the ref is as it was. Place
// moves the ref; Abandon leaves it. One of the two must be called.
type HeldRef struct {
	repo                *Repo
	name, old, new, msg string
	lock                *git.Lock
}

// Place logs the move (Repo.RefLog) and renames the lock over the ref:
// from here readers see the new value. On failure the ref is unchanged
// and the lock removed.
func (h *HeldRef) Place() error {
	if err := h.repo.logRef(h.name, h.old, h.new, h.msg); err != nil {
		h.lock.Abandon()
		return fmt.Errorf("update ref %s: %w", h.name, err)
	}
	if err := h.lock.Place(); err != nil {
		h.lock.Abandon()
		return fmt.Errorf("update ref %s: %w", h.name, err)
	}
	return nil
}

// Abandon removes the lock and leaves the ref as it was.
func (h *HeldRef) Abandon() { h.lock.Abandon() }

// LockRef is UpdateRefWait up to the rename: the lock taken, the current
// value checked, the new value written to the lock and synced, with the
// same errors. A writer calls it while it writes the objects newHash
// names, so that the sync and the object files overlap, and Places it
// once they are written: the ref names no object before it exists. The
// wait for a lock another process holds also ends with ctx (a write
// stopped: the error wraps ctx's, the ref unchanged). Place logs the move
// with msg (Repo.RefLog).
func (r *Repo) LockRef(ctx context.Context, name, oldHash, newHash, msg string, wait time.Duration) (*HeldRef, error) {
	if err := CheckRefName(name); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(name, "refs/") {
		return nil, fmt.Errorf("%w %q: not under refs/", ErrBadRefName, name)
	}
	if len(newHash) != 40 || !isHex(newHash) || oldHash != "" && (len(oldHash) != 40 || !isHex(oldHash)) {
		return nil, fmt.Errorf("update ref %s: object ids must be 40 hex digits", name)
	}
	oldHash, newHash = strings.ToLower(oldHash), strings.ToLower(newHash)
	path := r.refPath(name)
	lock, err := git.TakeLockContext(ctx, path, wait)
	if errors.Is(err, syscall.ENOTDIR) {
		if err := r.RefConflict(name); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("update ref %s: a file is in the way of its directory", name)
	}
	if err != nil {
		return nil, fmt.Errorf("update ref %s: %w", name, err)
	}
	committed := false
	defer func() {
		if !committed {
			lock.Abandon()
		}
	}()
	cur, target, err := r.readLoose(name)
	if err == nil && target != "" {
		err = fmt.Errorf("update ref %s: it is a symbolic ref to %s", name, target)
	}
	if err == nil && cur == "" {
		cur, err = r.PackedRef(name)
	}
	if err != nil {
		return nil, err
	}
	if cur != oldHash {
		return nil, fmt.Errorf("update ref %s: expected %s, found %s: %w", name, orNone(oldHash), orNone(cur), ErrStale)
	}
	if cur == "" {
		if err := r.RefConflict(name); err != nil {
			return nil, err
		}
		os.Remove(path) // an empty directory left by deleted refs, as git does
	}
	if err := lock.Prepare([]byte(newHash+"\n"), 0); err != nil {
		return nil, fmt.Errorf("update ref %s: %w", name, err)
	}
	committed = true
	return &HeldRef{repo: r, name: name, old: oldHash, new: newHash, msg: msg, lock: lock}, nil
}

// RefUpdate is one ref of UpdateRefs: name from Old ("" meaning it must
// not exist) to New.
type RefUpdate struct {
	Name, Old, New string
}

// UpdateRefs moves every ref of updates, each only if its current value
// is its Old, in one transaction of git's own (`git update-ref --stdin`,
// which takes every ref's lock, checks every old value against the loose
// and the packed ref, and only then renames the locks into place): all
// move or none does. It is what a catch-up or pull that moves many task
// refs uses, one git process for all of them instead of a lock, a flush
// and a rename each in turn. An error says only that the transaction
// failed (a ref moved meanwhile, a lock held, a ref in the way): the
// caller moves the refs one by one (UpdateRef), which tells which.
func (r *Repo) UpdateRefs(ctx context.Context, updates []RefUpdate) error {
	var in bytes.Buffer
	for _, u := range updates {
		if err := CheckRefName(u.Name); err != nil {
			return err
		}
		if !strings.HasPrefix(u.Name, "refs/") {
			return fmt.Errorf("%w %q: not under refs/", ErrBadRefName, u.Name)
		}
		if len(u.New) != 40 || !isHex(u.New) || u.Old != "" && (len(u.Old) != 40 || !isHex(u.Old)) {
			return fmt.Errorf("update ref %s: object ids must be 40 hex digits", u.Name)
		}
		old := u.Old
		if old == "" {
			old = strings.Repeat("0", 40) // must not exist
		}
		fmt.Fprintf(&in, "update %s %s %s\n", u.Name, strings.ToLower(u.New), strings.ToLower(old))
	}
	if len(updates) == 0 {
		return nil
	}
	if err := r.refsStdin(ctx, &in); err != nil {
		return fmt.Errorf("update %d refs in one transaction: %w", len(updates), err)
	}
	return nil
}

func orNone(h string) string {
	if h == "" {
		return "no ref"
	}
	return h
}

// conflictingRef returns an existing ref that is a directory prefix of name
// or has name as one (refs/a vs refs/a/b), "" when there is none.
func (r *Repo) conflictingRef(name string) string {
	for i := strings.IndexByte(name, '/'); i >= 0; i = nextSlash(name, i) {
		if h, t, _ := r.readLoose(name[:i]); h != "" || t != "" {
			return name[:i]
		}
	}
	found, self := "", r.refPath(name)
	filepath.WalkDir(self, func(p string, d fs.DirEntry, err error) error {
		// name's own file is name, not a ref in its way.
		if err == nil && !d.IsDir() && p != self && !strings.HasSuffix(p, ".lock") {
			rel, _ := filepath.Rel(r.CommonDir, p)
			found = filepath.ToSlash(rel)
			return fs.SkipAll
		}
		return nil
	})
	if found != "" {
		return found
	}
	p, err := r.packed()
	if err != nil {
		return "" // as a packed-refs that does not read held nothing in the way
	}
	for i := strings.IndexByte(name, '/'); i >= 0; i = nextSlash(name, i) {
		if h, _ := p.lookup(name[:i]); h != "" {
			return name[:i]
		}
	}
	p.withPrefix(name+"/", func(n, _ string) bool {
		found = n
		return false
	})
	return found
}

func nextSlash(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// CheckRefName reports, wrapping ErrBadRefName, why git would refuse name
// (git check-ref-format without --allow-onelevel): it needs two or more
// components, none empty, starting with "." or ending in ".lock"; no "..",
// "@{", control characters, space, ~ ^ : ? * [ or \; not "@", not ending in
// "/" or ".".
func CheckRefName(name string) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrBadRefName, name, why) }
	switch {
	case name == "" || name == "@":
		return bad("not a ref name")
	case strings.HasSuffix(name, "/") || strings.HasSuffix(name, "."):
		return bad("ends with / or .")
	case strings.Contains(name, ".."), strings.Contains(name, "@{"):
		return bad("contains .. or @{")
	case !strings.Contains(name, "/"):
		return bad("needs at least two components (refs/...)")
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return bad(fmt.Sprintf("contains %q", c))
		}
	}
	for _, comp := range strings.Split(name, "/") {
		switch {
		case comp == "":
			return bad("has an empty component")
		case comp[0] == '.':
			return bad("has a component starting with .")
		case strings.HasSuffix(comp, ".lock"):
			return bad("has a component ending with .lock")
		}
	}
	return nil
}

// RefLogging is how the ref updates of this program are logged, as git
// logs its own (refs/files-backend.c): a line appended to the ref's log
// (logs/<ref>) when it has one, or, with core.logAllRefUpdates set to
// always, to one created for it. git's default (true) creates logs only
// for branches, remote-tracking refs, notes and HEAD, never for a task
// ref; a log made otherwise (git reflog, git update-ref --create-reflog,
// the setting) is kept up to date.
type RefLogging struct {
	// Always is core.logAllRefUpdates=always: a ref without a log gets one.
	Always bool
	// Ident is who moves the ref, "Name <email>", as the committer of a
	// record's commit is; "" writes no line (the ref is moved unlogged).
	Ident string
}

// RefLogger says how a ref update is logged (Repo.RefLog): from the
// configuration of the command that moves it.
type RefLogger interface {
	RefLogging() RefLogging
}

// refLogLine is a log's line for a move of a ref from old ("" when it
// did not exist) to new, by ident at when, with msg: git's format,
// "<old> <new> <ident> <unix time> <zone>\t<msg>\n" (no tab without a
// message).
func refLogLine(old, new, ident string, when time.Time, msg string) []byte {
	if old == "" {
		old = strings.Repeat("0", 40)
	}
	line := fmt.Sprintf("%s %s %s %d %s", old, new, ident, when.Unix(), when.Format("-0700"))
	if msg != "" {
		line += "\t" + msg
	}
	return []byte(line + "\n")
}

// logPath is where the log of the ref name lives: logs/<name> beside
// the ref's own directory (the per-worktree refs' in GitDir).
func (r *Repo) logPath(name string) string {
	p := filepath.FromSlash(name)
	return filepath.Join(strings.TrimSuffix(r.refPath(name), p), "logs", p)
}

// logRef appends the line of the move of name from old to new to its
// log, as git's files_log_ref_write does under the ref's lock before the
// rename: to a log that exists (one failed open when none does), or to
// one created, its directories too, when core.logAllRefUpdates is always;
// what is created is shared as the repository is (core.sharedRepository). A log
// that cannot be written fails the update, as git's does.
func (r *Repo) logRef(name, old, new, msg string) error {
	if r.RefLog == nil {
		return nil
	}
	how := r.RefLog.RefLogging()
	if how.Ident == "" {
		return nil
	}
	path := r.logPath(name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	created := false
	if missing(err) && how.Always {
		if err = git.MkdirAll(filepath.Dir(path), 0o777); err == nil {
			f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
			created = true
		}
	}
	if missing(err) && !how.Always {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open the log of %s: %w", name, err)
	}
	_, err = f.Write(refLogLine(old, new, how.Ident, time.Now(), msg))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && created {
		_ = git.AdjustCreated(path) // as git's adjust_shared_perm
	}
	if err != nil {
		return fmt.Errorf("write the log of %s: %w", name, err)
	}
	return nil
}

// missing reports whether err says a file is not there: its directory
// missing, or a file or directory in the way of one.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR)
}

// pushInline is how many refspecs Push names on git push's command line.
// Past it, the commits are refs of a namespace of this process's own
// (stagePush), pushed by one wildcard refspec: git 2.39 matches each
// explicit refspec against every local ref, and a clone holds two refs a
// task, so a first push of 3,000 of 20,000 tasks took 97 s against 10.5 s
// this way (`sh bench/push/first.sh BASE`); and a refspec a task for
// tens of thousands of tasks comes near what one command line holds. A
// push killed between stagePush and dropStaged leaves its namespace (its
// refs keep their commits, as the task refs do) until the next push
// removes it; doctor says it is there.
var pushInline = 200

// StagedPrefix holds the namespaces of pushes under way,
// refs/reason-push/<pid>-<nanoseconds>/<task>: outside refs/reasoning/,
// so no listing of tasks, fetch or pull sees them, and each process's
// own, so two pushes at once do not meet.
const StagedPrefix = "refs/reason-push/"

// allTasks reports whether every refspec lands on a task ref, the only
// pushes stagePush names: "<commit>:refs/reasoning/tasks/<task>".
func allTasks(refspecs []string) bool {
	for _, spec := range refspecs {
		from, to, _ := strings.Cut(spec, ":")
		if len(from) != 40 || !isHex(from) || !strings.HasPrefix(to, TaskPrefix) {
			return false
		}
	}
	return true
}

// stagePush writes each refspec's commit as a ref of a new namespace of
// this process's (one `git update-ref --stdin`, each ref created only if
// absent) and returns the namespace, "refs/reason-push/<id>/": pushing
// "<namespace>*:refs/reasoning/tasks/*" sends exactly those commits to
// those task refs.
func (r *Repo) stagePush(ctx context.Context, refspecs []string) (string, error) {
	ns := fmt.Sprintf("%s%d-%d/", StagedPrefix, os.Getpid(), time.Now().UnixNano())
	var in bytes.Buffer
	for _, spec := range refspecs {
		from, to, _ := strings.Cut(spec, ":")
		fmt.Fprintf(&in, "create %s%s %s\n", ns, strings.TrimPrefix(to, TaskPrefix), from)
	}
	if err := r.refsStdin(ctx, &in); err != nil {
		r.dropStaged(ctx, ns) // what a refusal half-way may have left
		return "", fmt.Errorf("stage %d task refs to push: %w", len(refspecs), err)
	}
	return ns, nil
}

// dropStaged deletes the refs of namespace ns (stagePush's), whatever
// ctx says: a push stopped half-way leaves no ref behind.
func (r *Repo) dropStaged(ctx context.Context, ns string) {
	r.dropRefs(context.WithoutCancel(ctx), ns)
}

// stagedLeftAge is the age past which a staged namespace is left, even
// when a process of its pid runs: that pid is another process's now (a
// push reads its refs once, at its start, so one that runs this long has
// no use for them either).
const stagedLeftAge = time.Hour

// leftStaged reports whether the namespace id ("<pid>-<nanoseconds>") was
// left by a push that is over: its process is gone, or it is older than
// stagedLeftAge. An id of another shape is left too: no push of ours
// names one so.
func leftStaged(id string, now time.Time) bool {
	pid, ns, _ := strings.Cut(id, "-")
	n, err := strconv.Atoi(pid)
	at, terr := strconv.ParseInt(ns, 10, 64)
	if err != nil || terr != nil || n <= 0 {
		return true
	}
	return errors.Is(syscall.Kill(n, 0), syscall.ESRCH) || now.Sub(time.Unix(0, at)) > stagedLeftAge
}

// LeftStaged lists the namespaces under refs/reason-push/ that pushes
// which are over left (leftStaged), with how many refs each holds: a push
// killed before its dropStaged. The next push removes them.
func (r *Repo) LeftStaged(ctx context.Context) (map[string]int, error) {
	out, err := r.Command("for-each-ref", "--format=%(refname)", StagedPrefix).Run(ctx)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	left, live := map[string]int{}, map[string]bool{}
	now := time.Now()
	for _, ref := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		id, _, ok := strings.Cut(strings.TrimPrefix(ref, StagedPrefix), "/")
		if !ok {
			continue // no namespace: no push of ours made it
		}
		if _, seen := left[id]; !seen && !live[id] {
			if !leftStaged(id, now) {
				live[id] = true
				continue
			}
		}
		if !live[id] {
			left[id]++
		}
	}
	return left, nil
}

// dropLeftStaged deletes each namespace under refs/reason-push/ that a
// push which is over left (LeftStaged).
func (r *Repo) dropLeftStaged(ctx context.Context) {
	left, _ := r.LeftStaged(ctx)
	for id := range left {
		r.dropRefs(ctx, StagedPrefix+id+"/")
	}
}

// dropRefs deletes every ref under prefix in one `git update-ref --stdin`.
func (r *Repo) dropRefs(ctx context.Context, prefix string) {
	out, err := r.Command("for-each-ref", "--format=delete %(refname)", prefix).Run(ctx)
	if err != nil || len(out) == 0 {
		return
	}
	_ = r.refsStdin(ctx, bytes.NewReader(out))
}

// refsStdin runs `git update-ref --stdin` with in: one transaction of
// git's own. Not ended with ctx, nor by a signal sent to our process
// group: git killed half-way leaves refs moved and others not, and one of
// its locks (git 2.39's update-ref --stdin sent SIGTERM while it takes
// 3,000 locks leaves one in most runs), which nothing takes over; the
// transaction is short.
func (r *Repo) refsStdin(ctx context.Context, in io.Reader) error {
	cmd := r.Command("update-ref", "--stdin")
	cmd.Stdin = in
	cmd.Detached = true
	_, err := cmd.Run(context.WithoutCancel(ctx))
	return err
}
