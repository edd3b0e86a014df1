package settings

// Doc is one row of the configuration table: a key (or "—" for one read
// from the environment only), its type, default, what reads it, and the
// environment variables and flags that win over it. docs/CONFIGURATION.md
// and the manual page (git reason man) both print this table
// (TestDocTableIsGenerated holds the file to it).
type Doc struct {
	Key, Type, Default, ReadBy, Overrides string
}

// Docs lists every key and variable resolve reads, in the order the
// documentation shows them.
var Docs = []Doc{
	{"`reason.profile`", "profile id", "`default`; `ci` when `CI` is true", "the execution profile: `advisors`, `plan`, `consult`, `doctor`, `serve`, and admission of every write", "`--profile`, then `GIT_REASON_PROFILE`, win over the key; `CI` (true, 1, …) selects `ci` when none of them names a profile"},
	{"`reason.disable`", "advisor ids, separated by commas or spaces", "none", "availability (`advisors`, `plan`, `consult`, `serve`) and `doctor`", "`GIT_REASON_DISABLE` replaces the key when set, even empty (every advisor enabled for one run)"},
	{"`reason.neverSend`", "globs, separated by commas or spaces; several values; an empty value clears those before it", "`.env*`, `*.pem`, `id_*`, `*.key` (always first, so a value adds to them unless an empty value clears them)", "`plan`, `consult`, `show --question`: files never read for an advisor's question. A glob without `/` matches any name in a path (a file's or a directory's), one with `/` the whole path from the repository's top; a diff leaves those files out", "none"},
	{"`reason.maxBytesPerConsult`", "integer bytes, with an optional `k`, `m` or `g`", "`8m`", "`consult`: the questions of one run, all advisors together; a run over it sends nothing and is refused (exit 3)", "none"},
	{"`reason.mcpConsults`", "positive integer", "`4`", "`mcp`: the `consult` calls one client (one MCP session) may have under way at once; a call past it is refused at once (`refused`), asking no advisor", "none"},
	{"`reason.maxTaskBytes`", "size in bytes; `k`, `m`, `g` suffixes as git reads them; at least `1m`", "`32m`", "every read of a task's history (`pull`, `push`, `sync`, `verify`, and every command that loads a task): a history whose records total more, whose commits change more `records/` entries than one per 64 bytes of it, or that holds more commits than one per 128 bytes of it (counted before any tree is read), is refused unread, a fetched one quarantined", "none"},
	{"`reason.maxPullBytes`", "as `reason.maxTaskBytes`", "`128m`", "`pull`, `push`, `sync`: the record bytes the histories of one run may read; the tasks past it are quarantined until the next pull", "none"},
	{"`reason.origin`", "this clone's id", "written by the clone's first write: a new lowercase ULID, in the repository's own config file", "every write (the record's `origin`); circuits count only this origin's outcomes", "none"},
	{"`core.hooksPath`", "path; relative to the work tree's top", "`hooks/` in the common git directory", "`hooks install`, `hooks uninstall`, `hooks status`, `doctor`", "none"},
	{"`core.sharedRepository`", "`umask`, `group`, `all`, an octal mode, or a boolean, as git reads it", "`umask`", "every command: the record objects, task refs and their directories it creates, its files under `.git/reason/` (the advisors' journal included), the conclusion template and a hooks directory it makes get the permissions git gives its own (the servers' tokens excepted, which stay their owner's)", "none"},
	{"`core.logAllRefUpdates`", "boolean or `always`, as git reads it", "`true` (`false` in a bare repository)", "every write and integration: the task ref it moves gets a line in its log (`.git/logs/refs/reasoning/tasks/<task>`, `git reflog show`) when it has one, and one is made for it with `always`", "none"},
	{"`core.commentChar`", "the text that starts a comment line", "`#` (also when empty or `auto`)", "the `prepare-commit-msg` and `commit-msg` hooks: which lines of a commit message are comments", "none"},
	{"`user.name`", "string", "none: a write refuses to run without a name", "the actor (author and committer of every record's commit)", "`GIT_AUTHOR_NAME`, then `author.name`, win over it"},
	{"`author.name`", "string", "`user.name`", "the actor", "`GIT_AUTHOR_NAME`"},
	{"`user.email`", "string", "none: a write refuses to run without an address", "the actor", "`GIT_AUTHOR_EMAIL`, then `author.email`, win over it; `EMAIL` is used when none is set"},
	{"`author.email`", "string", "`user.email`", "the actor", "`GIT_AUTHOR_EMAIL`"},
	{"`core.pager`", "command; `cat` or empty for none", "`less`", "the pager of `log`, `show` and `status` of every task, only when stdout is a terminal and not with `--json`, `--no-pager` or `git --no-pager`; `LESS` defaults to `FRX`", "`GIT_PAGER` wins, then a command in `pager.reason`; `PAGER` is used when the key is unset"},
	{"`pager.reason`", "boolean, or a command to page git reason with", "unset", "whether git reason pages (false: never), or the command it pages with", "`GIT_PAGER` wins over a command here"},
	{"`color.ui`", "`always`, `auto`, `never`, or a boolean (true means auto)", "`auto`", "colour of phases (`status`) and of refusals (exit 3, on stderr): on a terminal under `auto`, never in JSON", "`--color[=WHEN]` and `--no-color` win; `NO_COLOR` (non-empty) turns `auto` into `never`; an explicit `always` still wins"},
	{"`color.reason`", "as `color.ui`", "`color.ui`", "as `color.ui`, and wins over it", "as `color.ui`"},
	{"`color.pager`", "boolean", "`true`", "under `auto`, whether output going to a pager (git reason's, or git's under `git -p`) is coloured, as on a terminal; a dumb terminal (`TERM` unset or `dumb`) gets no colour under `auto` either way", "none"},
	{"`remote.<name>.url`", "URL; a remote is configured when it has one", "none", "`pull`, `push`, `sync`: which names are remotes; the automatic catch-up integrates the reasoning fetched under a configured remote's name only", "none"},
	{"`remote.<name>.pushurl`", "URL", "none", "the automatic catch-up: a remote with one (or a `url` or `vcs`) is configured, as git counts remotes, and the reasoning fetched under its name is integrated", "none"},
	{"`remote.<name>.vcs`", "remote helper name", "none", "as `remote.<name>.pushurl`", "none"},
	{"`remote.<name>.fetch`", "refspecs, several values", "what `git remote add` writes", "`remote setup`: whether the tasks' refspec is there already", "none"},
	{"`branch.<name>.reasonTask`", "task name", "the branch's own name", "every verb that takes one TASK (`assess`, `plan`, `consult`, `disagree`, `resolve`, `conclude`, `validate`, `attempt`) run without it on branch `<name>` (it says which task it chose on stderr), and the `prepare-commit-msg` hook's `Reason-Task:` trailer", "a TASK argument wins"},
	{"`branch.<name>.remote`", "remote name", "none", "`pull`, `push`, `sync` without REMOTE, as git fetch chooses (`sync` pulls from it and pushes where `push` would): the current branch's upstream remote, else the only remote when there is one, else `origin`", "none"},
	{"`branch.<name>.pushRemote`", "remote name", "none", "`push`, and the push of `sync`, without REMOTE, as git push chooses: the current branch's push remote", "none"},
	{"`remote.pushDefault`", "remote name", "none", "`push`, and the push of `sync`, without REMOTE, as git push chooses, when the branch has no `pushRemote`", "`branch.<name>.pushRemote` wins"},
	{"`commit.gpgSign`", "boolean", "false", "every write: each record commit (and a sync merge) is signed as `git commit -S` signs it", "`reason.sign` wins when set"},
	{"`reason.sign`", "boolean", "`commit.gpgSign`", "as `commit.gpgSign`, for records only", "none"},
	{"`gpg.format`", "`openpgp`, `x509` or `ssh`", "`openpgp`", "signing and verifying records, as git reads it", "none"},
	{"`user.signingKey`", "key id (openpgp, x509); path or `key::` literal public key (ssh)", "the actor (openpgp, x509); `gpg.ssh.defaultKeyCommand` (ssh)", "signing records", "none"},
	{"`gpg.program`", "command", "`gpg`", "signing records with `gpg.format` openpgp; git checks OpenPGP signatures with it, and its listing of the keyring (each key's validity, which keys have expired) keys the verdicts kept in `.git/reason/signatures/` (a change of the keyring or of a key's trust checks every kept verdict again)", "`gpg.openpgp.program` when set in a later scope"},
	{"`gpg.openpgp.program`", "command", "`gpg.program`", "as `gpg.program`", "none"},
	{"`gpg.x509.program`", "command", "`gpgsm`", "signing records with `gpg.format` x509; git checks X.509 signatures with it, and its listing of the keyring (the trust list included) and the day key the verdicts kept (checked again each day, for revocations published in a CRL)", "none"},
	{"`gpg.ssh.program`", "command", "`ssh-keygen`", "signing records with `gpg.format` ssh; git checks ssh signatures with it (a change checks every kept verdict again)", "none"},
	{"`gpg.ssh.defaultKeyCommand`", "command", "none", "ssh signing without `user.signingKey`: the first line it prints is the key", "none"},
	{"`gpg.ssh.allowedSignersFile`", "path", "none", "who is an allowed signer: `verify`, `pull`, `sync`, reuse and every read surface (with a trusted `.reason/allowed_signers`); git's verdicts on ssh signatures are kept per commit in `.git/reason/signatures/` until this file's path or content changes", "none"},
	{"`gpg.ssh.revocationFile`", "path", "none", "git's check of ssh signatures: a revoked key's signature is bad; a change of its path or content checks every kept verdict again", "none"},
	{"`reason.requireSigned`", "`false`, `fetched` or `all`", "`false`", "`fetched`: `pull` and `sync` quarantine a task whose records are not all signed by an allowed signer; `all`: an unsigned local write is refused too", "none"},
	{"`reason.pushWithCode`", "`true`, `warn` or `false`", "`true`", "the installed `pre-push` hook: `true` pushes the reasoning of every task named by a `Reason-Task:` trailer of the pushed commits (and the branch's task) to the same remote, never forced, in one git push (a task that does not travel is one line, never a refused code push); `warn` only names the tasks the remote lacks; `false` leaves reasoning alone", "none"},
	{"`reason.allowRewrite`", "boolean", "false", "the server's `pre-receive` hook (`hooks install --server`): a forced or deleted task ref is let through", "none"},
	{"`receive.fsckObjects`", "boolean", "git's (false)", "`hooks install --server`: set to true, in the repository's config file, when no configuration file sets it", "none"},
	{"—", "git reason's directory in the user's configuration", "`$HOME/.config/git-reason`", "the user overlay `advisors.yaml`", "`XDG_CONFIG_HOME` (when absolute) gives `$XDG_CONFIG_HOME/git-reason`, else `HOME`"},
}
