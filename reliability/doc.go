// Package reliability holds the end-to-end reliability suite of git reason.
// It has no code of its own: its tests take the real git-reason binary from
// the shared harness (reliability/harness, which builds it once per run),
// run it through git's subcommand dispatch against real temporary
// repositories, and print what they tried and what they found.
//
//   - TestConcurrentWriters: 8 writer processes on one task and on 8 tasks
//     while git pack-refs, git gc, git maintenance (loose-objects) and
//     git update-ref run in loops, and a reader checks that the task refs
//     always resolve and git reason status always succeeds. Each task's
//     first-parent history must be one commit per record, each adding only
//     its own record with the next clock and a trailer naming it. The long
//     form is the store's concurrency figure (8 processes x 200 records on
//     one task under pack-refs and gc); go test ./gitstore stays quick.
//   - TestCrash: appends killed with SIGKILL at random moments; every
//     acknowledged record must survive, the ref must always resolve, and
//     lock files left by a kill are counted (and removed, as a git user
//     would).
//   - TestBadInput: an ordered table of malformed bodies, flags, task names,
//     record ids and declaration files; each must exit 2 or 3 with one line
//     of error and change no ref and no object.
//   - The counting tests (TestStatusCounts, TestScaleCounts, TestVerifyCounts,
//     TestNoOpReadsCounts and the others named *Counts): what a command
//     read, decoded, listed and started, as the process reports it
//     (GIT_REASON_COST, gitstore.Cost), held to bounds that do not grow
//     with the repository. Most run with -short too (TestPullCounts,
//     TestScaleCounts and TestVerifyCounts, which build large histories,
//     do not).
//
// The quick form of the first three runs under plain `go test ./...` (they
// skip with -short, which is the quick loop of unit and script tests); the
// long form, with the figures the issue asks for, runs with
//
//	GIT_REASON_LONG=1 go test ./reliability/ -run 'TestConcurrentWriters|TestCrash' -v -timeout 60m
//
// docs/RELIABILITY.md records the figures of both forms.
package reliability
