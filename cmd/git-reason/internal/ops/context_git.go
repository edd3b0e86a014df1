package ops

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"git-reason/gitstore"
	"git-reason/gitstore/git"
)

// commitRange is a range of commits resolved by git.
type commitRange struct {
	spec      string // as git log reads it, with the names given
	baseRef   string // what a default range started from
	base      string // full hash of the start (the merge base, for a default range)
	head      string // full hash of the end
	symmetric bool   // A...B: the commits of either side, not both
	// unborn names the branch with no commits yet that a default range
	// was asked on ("branch main", or "HEAD" when detached): the range is
	// empty, and base and head are "".
	unborn string
	// whole names the branch a default range found no base for (no
	// upstream, no default branch): the range is its whole history, and
	// base is "".
	whole string
}

// objectName matches a full object name, SHA-1 or SHA-256; compiled on
// first use, not at start-up.
var objectName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`) })

// rangeCommit is one commit of a range and the tasks its trailers name.
type rangeCommit struct {
	hash, subject string
	tasks         []string
}

// gitOut runs git in the session's repository and returns its standard
// output as it is, or the first line git printed on error.
func (e *Session) gitOut(ctx context.Context, args ...string) (string, error) {
	return e.gitOutMax(ctx, 0, args...)
}

// gitOutMax is gitOut holding at most max bytes of git's output (0: no
// bound): past them the error is git.ErrOutputLimit, git killed.
func (e *Session) gitOutMax(ctx context.Context, max int64, args ...string) (string, error) {
	c := e.Repo.Command(args...)
	c.MaxOutput = max
	return gitText(c.Run(ctx))
}

// gitText is a git command's output as text, or its error as git's own
// last line, "fatal: " left out.
func gitText(out []byte, err error) (string, error) {
	var ge *gitstore.GitError
	switch {
	case errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) != "":
		msg, _, _ := strings.Cut(strings.TrimSpace(ge.Stderr), "\n")
		return "", errors.New(strings.TrimPrefix(msg, "fatal: "))
	case err != nil:
		return "", err
	}
	return string(out), nil
}

// resolveRange reads spec as git log would (see ContextQuery.Range) and
// resolves both ends to commits.
func (e *Session) resolveRange(ctx context.Context, spec string) (*commitRange, error) {
	if spec == "" {
		return e.defaultRange(ctx)
	}
	// No revision holds a control character: a NUL, which the page's and
	// MCP's ranges can carry, would reach git's argument vector and come
	// back as the error of exec itself. Nor a blank, but for git's
	// ":/TEXT" (the youngest commit whose message matches TEXT).
	if strings.HasPrefix(spec, "-") || strings.ContainsFunc(spec, unicode.IsControl) {
		return nil, Usage("range %q: give A..B, A...B or one revision (read as REV..HEAD)", spec)
	}
	rg := &commitRange{spec: spec}
	from, to, ok := strings.Cut(spec, "...")
	if ok {
		rg.symmetric = true
	} else if from, to, ok = strings.Cut(spec, ".."); !ok {
		from, to = spec, "HEAD"
		rg.spec = spec + "..HEAD"
	}
	blank := func(rev string) bool { return !strings.HasPrefix(rev, ":/") && strings.Contains(rev, " ") }
	if strings.HasPrefix(from, "-") || strings.HasPrefix(to, "-") || blank(from) || blank(to) {
		return nil, Usage("range %q: give A..B, A...B or one revision (read as REV..HEAD)", spec)
	}
	if from == "" {
		from = "HEAD"
	}
	if to == "" {
		to = "HEAD"
	}
	// The trailing "--" makes git read both as revisions, never as paths.
	out, err := e.gitOut(ctx, "rev-parse", peeled(from), peeled(to), "--")
	if err != nil {
		// One revision R is read as R..HEAD: git log R would show every
		// commit up to R, not the range.
		return nil, Usage("range %q: %s: give revisions git knows (git log %s shows the same commits)", spec,
			strings.ReplaceAll(err.Error(), "^{commit}", ""), rg.spec)
	}
	hashes := strings.Fields(out)
	if len(hashes) < 2 || !objectName().MatchString(hashes[0]) || !objectName().MatchString(hashes[1]) {
		return nil, fmt.Errorf("range %q: git rev-parse printed %q", spec, out)
	}
	rg.base, rg.head = hashes[0], hashes[1]
	return rg, nil
}

// peeled is rev as a revision git resolves to a commit: rev^{commit}, but
// a ":/TEXT" search as it is, which finds only commits and would read the
// suffix as part of its TEXT.
func peeled(rev string) string {
	if strings.HasPrefix(rev, ":/") {
		return rev
	}
	return rev + "^{commit}"
}

// defaultRange is from the merge base of HEAD with its upstream, else with
// the default branch (origin/HEAD, else main, else master, else the branch
// init.defaultBranch names), to HEAD; with none of them, HEAD's whole
// history.
func (e *Session) defaultRange(ctx context.Context) (*commitRange, error) {
	// A branch with no commits yet (a repository just made) is a normal
	// place to be, not a mistake: its range is empty, and said to be
	// empty for that reason. It has no upstream or default branch to
	// look for either (it may be master itself).
	out, err := e.gitOut(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	head := strings.TrimSpace(out)
	if err != nil || head == "" {
		return &commitRange{spec: "HEAD", unborn: e.headName(ctx)}, nil
	}
	ref := ""
	if up, err := e.gitOut(ctx, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"); err == nil {
		ref = strings.TrimSpace(up)
	}
	if ref == "" {
		// One process says which exist; origin/HEAD is shown as the
		// branch it points to.
		out, err := e.gitOut(ctx, "for-each-ref", "--format=%(refname) %(symref)", "refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master")
		if err != nil {
			return nil, err
		}
		have := map[string]string{}
		for _, line := range strings.Split(out, "\n") {
			if name, target, ok := strings.Cut(line, " "); ok {
				if target == "" {
					target = name
				}
				have[name] = target
			}
		}
		for _, r := range []string{"refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master"} {
			if t := have[r]; t != "" {
				ref = strings.TrimPrefix(strings.TrimPrefix(t, "refs/heads/"), "refs/remotes/")
				break
			}
		}
	}
	if ref == "" {
		// A repository whose first branch is not main or master (git
		// init -b trunk) names its default in init.defaultBranch, when
		// the branch exists; asked only here, so that a base found
		// above costs no process.
		if b, err := e.gitOut(ctx, "config", "--get", "init.defaultBranch"); err == nil && strings.TrimSpace(b) != "" {
			b = strings.TrimSpace(b)
			if _, err := e.gitOut(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+b+"^{commit}"); err == nil {
				ref = b
			}
		}
	}
	if ref == "" {
		// Nothing to start from is no mistake of the caller's (a branch
		// of its own, as a repository that was never pushed has): the
		// range is HEAD's whole history, said so, as git log shows it.
		return &commitRange{spec: "HEAD", head: head, whole: e.headName(ctx)}, nil
	}
	base, err := e.gitOut(ctx, "merge-base", ref, "HEAD")
	if err != nil {
		return nil, giveRange(ref + " and HEAD have no common history")
	}
	return &commitRange{spec: ref + "..HEAD", baseRef: ref, base: strings.TrimSpace(base), head: head}, nil
}

// headName names what HEAD is on: "branch B", or "HEAD" when detached.
func (e *Session) headName(ctx context.Context) string {
	if b, err := e.gitOut(ctx, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil && strings.TrimSpace(b) != "" {
		return "branch " + strings.TrimSpace(b)
	}
	return "HEAD"
}

// giveRange is the refusal of a default range that cannot be made, which
// says to give one: as the command's argument, or the tool's.
func giveRange(why string) error {
	return usageAdvised(why+": give a range, as in 'git reason context BASE..HEAD'", why+`: give a range, as in range "BASE..HEAD"`)
}

// maxRangeSubject is the most columns of a commit's subject a range's
// listing keeps; maxRangeLog the most bytes of the listing past what git
// lays out for every commit (rangeLogCap).
const (
	maxRangeSubject = 400
	maxRangeLog     = 64 << 20
)

// rangeLogCap is the most bytes read of the listing of n commits:
// maxRangeLog of subjects and trailers, besides each commit's layout (its
// hash, the separators, and the blanks git pads its subject with to
// maxRangeSubject columns), which a range of short subjects is made of:
// 160,000 commits of 8 columns passed 64 MiB, which is their padding.
func rangeLogCap(n int64) int64 {
	const layout = 64 + 4 + maxRangeSubject // a SHA-256 hash, 3 separators and the record's end, the padding
	return maxRangeLog + n*layout
}

// rangeCommits lists the range's commits, oldest first, with the tasks
// their Reason-Task trailers name, in one git process.
func (e *Session) rangeCommits(ctx context.Context, rg *commitRange) ([]rangeCommit, error) {
	revs := rg.base + ".." + rg.head
	switch {
	case rg.symmetric:
		revs = rg.base + "..." + rg.head
	case rg.base == "": // the whole history
		revs = rg.head
	}
	// A stranger's commit may carry a message of gigabytes for a few KiB
	// fetched: its subject is cut to maxRangeSubject columns by git (which
	// pads shorter ones with blanks), and the whole read to maxRangeLog
	// bytes past that layout (a message of nothing but trailers): the
	// commits are counted first.
	count, err := e.gitOut(ctx, "rev-list", "--count", revs, "--")
	n, cerr := strconv.ParseInt(strings.TrimSpace(count), 10, 64)
	if err == nil && cerr != nil {
		err = cerr
	}
	out := ""
	if err == nil {
		out, err = e.gitOutMax(ctx, rangeLogCap(n), "log", "--reverse", "--no-color",
			"--format=%H%x00%<("+strconv.Itoa(maxRangeSubject)+",trunc)%s%x00%(trailers:key=Reason-Task,valueonly,separator=%x01)%x1e", revs, "--")
	}
	if errors.Is(err, git.ErrOutputLimit) {
		return nil, Usage("range %q: its commits' subjects and Reason-Task trailers pass %d MiB: give a shorter range", rg.spec, rangeLogCap(n)>>20)
	}
	if err != nil {
		// git log dies on a setting it cannot read (color.ui=maybe),
		// which was exit 1 and git's message: the settings' error, exit
		// 2 naming the key, as every verb gives it. Listed only now: a
		// range that reads lists none.
		if _, serr := e.Settings(); serr != nil {
			return nil, serr
		}
		return nil, fmt.Errorf("list the commits of %s: %w", rg.spec, err)
	}
	var commits []rangeCommit
	for _, rec := range strings.Split(out, "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, "\x00", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("list the commits of %s: unexpected git log output", rg.spec)
		}
		c := rangeCommit{hash: f[0], subject: strings.TrimRight(f[1], " ")}
		named := map[string]bool{}
		for _, t := range strings.Split(f[2], "\x01") {
			if t = strings.TrimSpace(t); t != "" && !named[t] {
				named[t] = true
				c.tasks = append(c.tasks, t)
			}
		}
		commits = append(commits, c)
	}
	return commits, nil
}

// rangeFiles lists the files the range changes, from the merge base of its
// ends to its end, in one git process. Ends that share no history (a ":/"
// search that found a commit of refs/reasoning/, say) have no merge base:
// that is the range given, not a failure here.
func (e *Session) rangeFiles(ctx context.Context, rg *commitRange) (map[string]bool, error) {
	args := []string{"diff", "--name-only", "--no-renames", "-z", rg.base + "..." + rg.head, "--"}
	if rg.base == "" {
		// The whole history changes every file of its end's tree, from
		// none; --full-tree, as git may run in a subdirectory.
		args = []string{"ls-tree", "-r", "-z", "--name-only", "--full-tree", rg.head}
	}
	out, err := e.gitOut(ctx, args...)
	if err != nil && rg.base != "" && strings.HasSuffix(err.Error(), "no merge base") {
		return nil, Usage("range %q: %s and %s share no history (git finds no merge base): give two revisions of one history",
			rg.spec, rg.base[:12], rg.head[:12])
	}
	if err != nil {
		return nil, fmt.Errorf("list the files %s changes: %w", rg.spec, err)
	}
	files := map[string]bool{}
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			files[f] = true
		}
	}
	return files, nil
}
