// Package prestart starts, while the program initialises its packages,
// the git processes that the command line's verb runs first: discovery
// (git rev-parse), then, for the verbs that read settings, git config
// --list for the repository discovery found. Go initialises a program's
// packages one after the other before main runs, and the largest of them
// (santhosh-tekuri/jsonschema/v5, which compiles the metaschemas of
// every draft it knows) takes longer than both git processes together:
// started here, their wall time overlaps it instead of following main's
// start. The operations layer runs the same commands through
// gitstore/git as it always did and takes these results (git.Early).
//
// This package imports nothing that imports the JSON Schema library, so
// Go initialises it first (TestPrestartBeforeJSONSchema holds it). It
// only starts git commands that read; a verb that turns out not to need
// one wastes it.
package prestart
