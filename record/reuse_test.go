package record_test

import (
	"encoding/json"
	"slices"
	"testing"

	"git-reason/record"
)

// Codes, which a quarantined or refused history reports, names each code
// of its findings once, sorted, and none as an empty list (JSON [], not
// null).
func TestCodes(t *testing.T) {
	found := []record.Finding{{Code: "forged"}, {Code: "inadmissible"}, {Code: "forged"}, {Code: "bad_signature"}, {Code: "inadmissible"}}
	if got, want := record.Codes(found), []string{"bad_signature", "forged", "inadmissible"}; !slices.Equal(got, want) {
		t.Errorf("Codes = %q, want %q", got, want)
	}
	if out, _ := json.Marshal(record.Codes(nil)); string(out) != "[]" {
		t.Errorf("Codes of no finding marshals as %s, want []", out)
	}
}
