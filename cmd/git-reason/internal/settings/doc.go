// Package settings reads every git configuration key and environment
// variable git reason acts on into one typed [Settings] value, once per
// command.
//
// Configuration is read the way git-lfs and gitsign read it: [Load] runs
// one `git config --list -z --show-scope --show-origin --includes`
// process, so git itself answers which files are read and in what order
// (system, global, repository, worktree), include.path and includeIf,
// `git -c` (GIT_CONFIG_PARAMETERS) and GIT_CONFIG_COUNT, and refuses what
// it refuses, with its own message. The caller decides when to load, so
// that a command that needs no setting runs no git; a command of the
// command line starts the listing beside repository discovery
// ([StartEarly]), in the directory it runs in, so that its two git
// processes run side by side and it waits for one. A long-running
// process (the MCP server) asks [Settings.Changed], a stat of each file
// the reading depends on, and loads again only when one changed. Every
// environment override (GIT_REASON_*, GIT_AUTHOR_*, EMAIL, CI, GIT_PAGER,
// PAGER, NO_COLOR, XDG_CONFIG_HOME, HOME) is applied in one function,
// resolve; nothing else in the program looks these up. Two variables that
// set no setting are read where they act: GIT_REASON_COST by
// gitstore.WriteCost, and a server's token variable (--token-env) by
// guard.
//
// The one key git reason writes, reason.origin (this clone's id), is
// written through `git config` by [SetOrigin], once per clone, so that
// processes racing to write it all end with the same value.
//
// docs/CONFIGURATION.md lists every key and variable; a test holds that
// table and this package to the same set.
//
// The package is wiring, not storage: gitstore needs no setting to keep
// records (git rev-parse tells it where the repository is, before any
// setting is read), so the value lives with the program that acts on it.
package settings
