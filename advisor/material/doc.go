// Package material turns an assessment's evidence into what an advisor is
// shown: the content of the files, diffs and recorded runs it points to,
// redacted, labelled as untrusted data and cut to fit each advisor's
// budget.
//
// It does no I/O of its own. The caller gathers each evidence item's
// content as a [Piece] (reading files at a commit, running git diff through
// the one git runner, looking up a recorded validation; never running a
// command) and passes it through a [Redactor] before anything else sees
// it. A [Set] then renders the question for one advisor with [Set.For]:
// the request's fields and evidence summaries always, then the material in
// evidence order until the budget is spent, the last block that does not
// fit truncated and the rest left out, each cut said in the question
// itself. Every advisor of one consultation gets the same set, so the same
// material in the same order and, for equal budgets, the same bytes.
//
// Repository content is data, not instructions. Each block is framed by
// markers that carry a random nonce drawn once per consultation; a piece
// that contains the nonce has it replaced before rendering, so no file can
// close its own block and pose as the tool. The manifest of a rendered
// question ([record.Question]: its SHA-256, size, budget, nonce, what each
// piece contributed and the redaction count) is what the consultation
// record stores; the
// material itself is never stored, and [Set.For] with the recorded nonce
// and budget over the same pieces renders the same bytes again.
package material
