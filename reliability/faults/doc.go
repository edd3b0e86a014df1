// Package faults holds the reliability suite's fault tests (secrets, the
// reach of a credential, and flapping advisors); it has no code of its
// own, only tests:
//
//   - secrets_test.go: the project's one canary (secret-leak) suite. Canary
//     credentials and canary strings in an advisor's error bodies, headers,
//     stderr and raw answer (prose, unknown fields, envelope), run through the real git-reason binary for
//     every command that reads or writes reasoning, with and without
//     --json, under each profile and on bad input; the commands before
//     consult must contact no advisor at all. Every output, every git
//     object, every file under .git (logs and .git/reason/ included), the
//     home directory and a trace2 log of every git process are searched.
//     Pass: 0 hits.
//   - reach_test.go: a canary credential reaches no server but the one the
//     user's own declarations name, whatever an untrusted or changed
//     overlay, a fetched plan or a peer request names. Pass: the
//     attacker's loopback server sees no request.
//   - flap_test.go: a loopback advisor that flaps between timeout, 429 with
//     Retry-After, 401, 5xx, garbage and valid answers, consulted through
//     advisor.Consult and a record.Writer over a real git repository with a
//     fake clock. Pass: every outcome recorded with the failure type the
//     server's own log predicts, the circuits as an independent model of
//     the rules says, as many consultation records as requests served, and
//     verification clean.
//
// Quick form (CI): go test ./reliability/faults/ (the secrets suite runs
// whole with -short too: it is the only test of these leaks)
// Long form:       GIT_REASON_LONG=1 go test ./reliability/faults/ -v -timeout 30m
//
// With -short the flapping server does each act once instead of 40 times.
//
// docs/RELIABILITY-FAULTS.md records what was tried and the figures.
package faults
