package advisor

import "testing"

// Every transport has a default budget in share/context.yaml, and a
// declared context_bytes wins over it.
func TestContextBudget(t *testing.T) {
	for _, tr := range Transports() {
		if n := ContextBudget(Declaration{Transport: tr}); n < 1024 {
			t.Errorf("transport %s: default budget %d", tr, n)
		}
	}
	if n := ContextBudget(Declaration{Transport: TransportAPI, ContextBytes: 5000}); n != 5000 {
		t.Errorf("declared 5000, got %d", n)
	}
}
