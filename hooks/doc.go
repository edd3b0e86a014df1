// Package hooks holds git reason's git hook shims (pre-commit, pre-push,
// pre-merge-commit, prepare-commit-msg, commit-msg; pre-receive for a
// hosted repository)
// and their installer. The shims are thin:
// they run any hook they replaced first, then hand over to
// 'git reason hook NAME'. They never prompt, and
// every line they print starts with "git-reason:".
//
// Installing honours core.hooksPath and linked worktrees (whose hooks live
// in the common git directory), never clobbers a hook it did not write (it
// keeps it beside the shim as NAME.git-reason-chained and runs it first),
// is idempotent, and is undone by Uninstall, which puts the chained hook
// back. Only the shim's exact bytes are git reason's: a file that merely
// carries the marker (an edited shim, another tool's hook quoting it) is
// refused by Install unless forced, which keeps it as
// NAME.git-reason-backup, and is never removed by Uninstall.
package hooks
