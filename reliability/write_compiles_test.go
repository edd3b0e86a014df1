package reliability

import (
	"fmt"
	"testing"
)

// TestAssessCompilesItsFourSchemas: a whole-process assess compiles the
// four documents its record is validated against (its body, its input
// rules, the envelope, its derived fields), each once, while git discovers the
// repository (record.Prepare): none of another kind's, none twice. The
// first assess of a task and one after it, with and without evidence.
func TestAssessCompilesItsFourSchemas(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for i, extra := range [][]string{
		{"--materiality", "trivial"},
		{"--materiality", "material", "--evidence", "note::read the logs"},
	} {
		args := append([]string{"assess", "T-compiles", "--subject", fmt.Sprintf("s%d", i), "--question", "q?", "--reversibility", "reversible"}, extra...)
		if c := s.costed(args...); c.Schemas != 4 {
			t.Errorf("assess %d compiled %d schema documents, want 4 (body, input, envelope, derived): %+v", i, c.Schemas, c)
		}
	}
}
