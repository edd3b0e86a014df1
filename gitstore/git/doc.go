// Package git is where this program speaks to git: every git process it
// starts is started here (Cmd, Run), with one environment and one error
// shape; one `git cat-file --batch-command` reader serves every batch
// read of objects (CatFile); and one lockfile, git's own <file>.lock
// protocol, guards every file this program replaces under the git
// directory (Lock, WriteFile, AppendFile, MakeKey): refs, and what
// .git/reason/ holds.
//
// Every git process runs with GIT_TERMINAL_PROMPT=0 (nobody watches a
// terminal prompt a subcommand's git would print; a credential helper or
// an ssh agent still answers) and LC_ALL=C (its messages are parsed: a
// refused lock, a dubious owner). A git that exits non-zero is an *Error
// naming the git command and the last line git wrote to stderr, its
// verdict; a fetch or push that cannot reach its remote says why on its
// first line instead (FirstLine), and ends with advice.
package git
