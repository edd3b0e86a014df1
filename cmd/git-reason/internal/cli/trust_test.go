package cli

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"git-reason/advisor"
)

// trust's help lists every field the gate holds back from an untrusted
// repository overlay, by the gate's own lists: a field added to the gate
// and not to the help once left context_bytes, context_tokens and
// peer_advisor out of it.
func TestTrustHelpNamesEveryGatedField(t *testing.T) {
	desc := trustCommand().Description
	words := regexp.MustCompile(`[a-z_]+`).FindAllString(strings.ReplaceAll(desc, "\n", " "), -1)
	for _, list := range [][]string{advisor.GatedFields, advisor.AttributionFields, advisor.ReviewFields} {
		for _, f := range list {
			if !slices.Contains(words, f) {
				t.Errorf("git reason trust -h does not name %s, which the gate holds back until trusted", f)
			}
		}
	}
}
