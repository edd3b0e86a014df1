// Package settings reads every git configuration key and environment
// variable git reason acts on into one typed [Settings] value, once per
// command.
//
// Configuration is read the way git reads it: the same files in the same
// order with the same scopes (system, global, repository, worktree),
// include.path and includeIf (gitdir:, gitdir/i:, onbranch:,
// hasconfig:remote.*.url:), `git -c` (GIT_CONFIG_PARAMETERS) and
// GIT_CONFIG_COUNT, giving what `git config -z --list --show-scope` lists
// for the repository. The files are read in-process (readConfig; each
// file's syntax by go-git's config parser, gcfg, in file order); whatever
// that reader does not pin down as git does (a file git or gcfg refuses,
// a form gcfg reads otherwise than git, an include loop, a bracket
// expression in a condition, a system file it cannot locate) is read by
// that one git process instead, so the two never differ: a differential test holds the
// reader to git over many layouts. The reader opens only regular files
// (never a FIFO or a device a repository's include.path or ref names) and
// stops at 2^18 variables, which only includes repeated over and over
// reach and git itself would list without end: [Load] then fails with its
// own error. [Load] does this; the caller decides
// when, so that a command that needs no setting reads nothing. Every
// environment override (GIT_REASON_*, GIT_AUTHOR_*, EMAIL, CI, GIT_PAGER,
// PAGER, NO_COLOR, XDG_CONFIG_HOME, HOME) is applied in one function,
// resolve; nothing else in the program looks these up.
//
// The one key git reason writes, reason.origin (this clone's id), is
// written through `git config` by [SetOrigin], once per clone, so that
// processes racing to write it all end with the same value.
//
// docs/CONFIGURATION.md lists every key and variable; a test holds that
// table and this package to the same set.
//
// The package is wiring, not storage: gitstore needs no setting to keep
// records (discovery reads its three repository-format keys itself, before
// any setting can be read), so the value lives with the program that acts
// on it.
package settings
