package advisor

import (
	"strings"
	"testing"
	"unicode/utf8"

	"git-reason/advisor/transport"
)

// TestFitForPeer: a peer's prompt is held to the budget whatever its
// material, cut at a line end (at a character's when no line ends in
// room), and refused when the question's own fields fill the budget.
func TestFitForPeer(t *testing.T) {
	base := transport.Request{Subject: "s", Question: "Keep the queue?", Needs: []string{"reasoning"}}
	frame := len(transport.Prompt(base))
	for name, material := range map[string]string{
		"lines":    strings.Repeat("line of material\n", 2000),
		"one line": strings.Repeat("é", 20000),
	} {
		req := base
		req.Material = material
		budget := frame + 1000
		got, ok := FitForPeer(req, budget)
		prompt := transport.Prompt(got)
		switch {
		case !ok:
			t.Errorf("%s: refused", name)
		case len(prompt) > budget:
			t.Errorf("%s: a prompt of %d bytes for a budget of %d", name, len(prompt), budget)
		case !utf8.ValidString(prompt) || !strings.HasSuffix(got.Material, peerCutNote):
			t.Errorf("%s: the cut material is not whole characters ending with the note: %q", name, got.Material[len(got.Material)-80:])
		case name == "lines" && !strings.HasSuffix(strings.TrimSuffix(got.Material, peerCutNote), "material\n"):
			t.Errorf("%s: not cut at a line end", name)
		}
		if got, ok := FitForPeer(req, len(transport.Prompt(req))); !ok || got.Material != material {
			t.Errorf("%s: a prompt within the budget was changed", name)
		}
	}
	wide := base
	wide.Evidence = []string{strings.Repeat("e", 5000)}
	if _, ok := FitForPeer(wide, 4096); ok {
		t.Error("summaries past the budget were accepted")
	}
}
