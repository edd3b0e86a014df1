// Package cli is git reason's command line. Every verb's name, one-line
// usage and arguments are stated once, in the verb table (commands,
// app.go). Each verb is then one file (a family shares one: life.go's
// close, reopen and withdraw, sync.go's pull, push, sync and remote) with
// the same shape: an options struct (base first: the streams, how to open
// the repository, --json; then its flags and arguments), a constructor
// that wires the flags into it, and a run function that calls one
// operation of package ops and renders the result. Every --json goes through one
// exporter (base.render, exportJSON), which prints an empty list as [],
// never null, and holds the output to the document the verb publishes
// (schemas.Outputs) before a byte of it is printed (checkOutput); --jq
// filters what passed. Data goes to stdout, status and errors to stderr.
//
// "completion SHELL" writes a bash, zsh or fish script generated from these
// same command definitions (verbs, flags, the values a record schema
// enumerates); for what only the repository knows (tasks, record ids,
// profiles, advisors, remotes, revisions) the scripts run the hidden
// "__complete", which reads refs and tree names only and, on any error,
// prints nothing and exits 1.
//
// The network verbs (consult, serve, web, mcp) are defined here like any
// other, so that help, completion and the manual page know them, but run
// in NetProgram (git-reason--net): git-reason replaces itself with it for
// those verbs, after parsing the command line the same way, and
// NetProgram, built from this same package with [MainNet], runs them with
// the servers it links (package serving). See NetProgram for why.
//
// On a terminal (standard input and error both one) a write verb asks for
// what its command line left out instead of failing, as git and gh do:
// assess prompts for its required fields, conclude opens the editor git
// would use on a template (ask.go, conclude_edit.go). Without a terminal
// a missing flag stays a one-line usage error.
//
// Exit status: 0 done; 1 failure (git, I/O); 2 bad usage or input (an
// aborted prompt or edit too), nothing written; 3 refused by a rule
// (admission, neutrality, verification); 130 interrupted (Ctrl-C: the
// process dies of SIGINT, as git's do), and 128 plus the signal's number
// when SIGTERM, SIGHUP or SIGQUIT ended it, as a shell says.
package cli
