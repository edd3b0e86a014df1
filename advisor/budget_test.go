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
	per := contextDefaults().BytesPerToken
	if per < 1 {
		t.Fatalf("bytes_per_token %d", per)
	}
	// Tokens count at share/context.yaml's rate; with bytes too, the
	// smaller budget holds.
	if n := ContextBudget(Declaration{Transport: TransportAPI, ContextTokens: 8000}); n != 8000*per {
		t.Errorf("declared 8000 tokens, got %d bytes, want %d", n, 8000*per)
	}
	if n := ContextBudget(Declaration{Transport: TransportAPI, ContextTokens: 8000, ContextBytes: 5000}); n != 5000 {
		t.Errorf("8000 tokens and 5000 bytes: got %d, want the smaller, 5000", n)
	}
	if n := ContextBudget(Declaration{Transport: TransportAPI, ContextTokens: 1000, ContextBytes: 500000}); n != 1000*per {
		t.Errorf("1000 tokens and 500000 bytes: got %d, want the smaller, %d", n, 1000*per)
	}
}

// How much of the repository is sent, and to whom at a peer, are a
// stranger's to set only once trusted: an untrusted overlay's
// context_bytes, context_tokens and peer_advisor are ignored and named.
func TestUntrustedOverlayCannotWidenWhatIsSent(t *testing.T) {
	file := repoOverlay(t, "advisors:\n  - id: alpha\n    context_bytes: 60000000\n    context_tokens: 9000000\n    peer_advisor: elsewhere\n")
	never := func(string) bool { return false }
	c, _, err := load(t, Sources{Repository: file, RepositoryTrusted: never})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := c.Advisor("alpha")
	if a.ContextBytes != 0 || a.ContextTokens != 0 || a.PeerAdvisor != "" {
		t.Errorf("alpha took sending fields from an untrusted overlay: %+v", a)
	}
	if c.Untrusted == nil || len(c.Untrusted.Ignored) != 1 || c.Untrusted.Ignored[0] != "alpha: context_bytes, context_tokens, peer_advisor" {
		t.Errorf("Untrusted = %+v, want the three fields named", c.Untrusted)
	}
	trusted, _, err := load(t, Sources{Repository: file, RepositoryTrusted: func(string) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := trusted.Advisor("alpha"); a.ContextTokens != 9000000 || a.PeerAdvisor != "elsewhere" {
		t.Errorf("trusted overlay: %+v", a)
	}
}
