package gitstore

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestIndexFold holds indexFold to bytes.Index over an ASCII-folded copy,
// on seeded random texts over a small alphabet (so that partial matches
// and both cases are common).
func TestIndexFold(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 1))
	const alphabet = "aAbB 1\n\tzZ."
	gen := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return b
	}
	for range 20000 {
		text, lit := gen(r.IntN(40)), asciiLower(gen(1+r.IntN(4)))
		want := bytes.Index(asciiLower(append([]byte(nil), text...)), lit)
		if got := indexFold(text, lit); got != want {
			t.Fatalf("indexFold(%q, %q) = %d, want %d", text, lit, got, want)
		}
	}
}
