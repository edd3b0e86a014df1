package signing

import "fmt"

// The values of reason.requireSigned.
const (
	RequireNone    = "false"   // only a bad signature is refused
	RequireFetched = "fetched" // what arrives from elsewhere must be signed by allowed signers
	RequireAll     = "all"     // every record, local writes too
)

// Refused returns the checks a history must not contain under require
// (reason.requireSigned): a bad signature always; under "fetched" or
// "all" every check that is not Allowed. A server-side hook calls it on
// Verify(newHead, --not oldHead) of each pushed task, with the hosted
// repository's own setting: a fetch is what a push is to it.
func Refused(require string, checks []Check) []Check {
	var out []Check
	for _, c := range checks {
		if c.Status == Bad || (require != RequireNone && require != "" && !c.Allowed()) {
			out = append(out, c)
		}
	}
	return out
}

// CodeSignature is the finding code of a refused signature.
const CodeSignature = "signature"

// Message is the one line that reports a refused check.
func Message(c Check) string {
	what := "commit"
	if c.Record != "" {
		what = "record " + c.Record
	}
	return fmt.Sprintf("%s by %s: %s", what, c.Actor, c.Describe())
}
