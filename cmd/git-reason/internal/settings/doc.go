// Package settings reads every git configuration key and environment
// variable git reason acts on into one typed [Settings] value, once per
// command.
//
// Configuration is read the way git reads it, because git reads it: one
// `git config -z --list --show-scope` process run against the repository,
// so that every scope (system, global, repository, worktree), include.path,
// includeIf, `git -c` (GIT_CONFIG_PARAMETERS) and GIT_CONFIG_COUNT apply
// exactly as they do for git's own commands. [Load] runs that process; the
// caller decides when, so that a command that needs no setting spawns
// nothing. Every environment override (GIT_REASON_*, GIT_AUTHOR_*, EMAIL,
// CI, GIT_PAGER, PAGER, NO_COLOR, XDG_CONFIG_HOME, HOME) is applied in one
// function, resolve; nothing else in the program looks these up.
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
