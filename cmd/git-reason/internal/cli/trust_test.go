package cli

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"git-reason/advisor"
	"git-reason/cmd/git-reason/internal/ops"
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

// A profile's mode is any text to the overlay schema: trust quotes one
// that is none of the modes, so that it cannot read as more of what
// trusting does.
func TestTrustLinesQuoteAnUnknownMode(t *testing.T) {
	res := &ops.TrustResult{Profiles: []advisor.ProfileEffect{
		{Profile: "x", New: true, Mode: "normal; profile default: mode normal, unchanged"},
		{Profile: "default", Mode: "ci", Was: "normal"},
	}}
	got := trustLines(res)
	want := []string{
		`new profile x (what a plan may ask): mode "normal; profile default: mode normal, unchanged" (not a mode)`,
		`profile default (changes [mode], what a plan may ask): mode ci, was normal`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("trust lines:\n got %q\nwant %q", got, want)
	}
}
