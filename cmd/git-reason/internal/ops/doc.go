// Package ops is the operations layer every surface calls: the command
// line, the MCP server (package mcpserver), the Reasoning page (package
// web) and the servers of package serving. Each operation takes a context
// and a request and returns a result, and every write goes through the one
// writer it holds. Operations never print; warnings go to Options.Warn.
//
// Operations do the I/O that the domain packages leave to their callers:
// for a neutrality check, ops reads .reason/neutrality.yaml, gathers the
// names from the declarations, lists the files (git ls-files, the index,
// a range of commits) and reads them, and hands paths and contents to
// policy/neutrality, which decides.
//
// Serving is not here: ReviewForPeer answers one peer's request, and
// package serving puts it on HTTP; the tools table of share/tools.yaml
// (Tools) is read here, so that 'git reason tools' runs in git-reason,
// which links no MCP SDK (see cli.NetProgram).
//
// The read surfaces render once, here, for every surface: WriteHandover
// and RenderContext in markdown pass every text from a record through
// record.Markdown, ContextComment (a pull request comment body, each task
// in a <details> block held to a size) through record.Markdown and, in its
// raw HTML summary lines, record.HTMLText, and Mermaid spells every
// diagram label in entity codes, so that a record cannot inject HTML, links
// or mentions into a page or a pull request.
//
// Signatures are git's verdicts (signing.Checker: one git log --no-walk
// for the commits whose verdict signing.Verdicts does not keep; an
// unsigned commit is told by its headers, read with one git cat-file).
// verify asks git about every task's heads together (VerifyHeads; a
// head whose checks are kept under a MAC, not again), pull about each
// moved history since its local head; the read surfaces (status, log,
// show, handover, context and their MCP tools) read RecordSignatures,
// which keeps each task's checks by head in .git/reason/signatures/ and
// asks git only about the commits since, dropping them when what git
// judges signatures by changes (SignaturesDigest; sigcache.go). Every task's signatures in brief
// (SignatureSummaries, for the task list) are kept by head in the journal
// .git/reason/signature-summaries.journal, appended when heads move: a
// few moved tasks are asked about from their own caches, many together in
// one git log (sigsummary.go).
//
// What a pull held back is remembered in .git/reason/quarantine.json
// (gitstore.Store.SaveQuarantines) with its codes and findings, and
// forgotten when a later integration brings the task in; Quarantined
// reads it back, dropping what the local ref has come to hold since.
package ops
