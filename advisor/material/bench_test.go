package material

import (
	"strings"
	"testing"

	"git-reason/advisor/transport"
)

func BenchmarkRedact(b *testing.B) {
	line := "\ttoken := r.Header.Get(\"Authorization\")\n\tcfg := map[string]string{\"endpoint\": \"https://example.invalid/v1\"}\nfor attempt := 0; attempt < 3; attempt++ {\n"
	text := strings.Repeat(line, (1<<20)/len(line))
	r := NewRedactor([]string{"BENCH_API_KEY"}, func(string) string { return "bench-credential-value-0042" })
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.Redact(text)
	}
}

func BenchmarkAssemble(b *testing.B) {
	line := "\ttoken := r.Header.Get(\"Authorization\")\n\tcfg := map[string]string{\"endpoint\": \"https://example.invalid/v1\"}\nfor attempt := 0; attempt < 3; attempt++ {\n"
	text := strings.Repeat(line, (1<<20)/len(line))
	r := NewRedactor([]string{"BENCH_API_KEY"}, func(string) string { return "bench-credential-value-0042" })
	b.SetBytes(int64(20 * len(text)))
	for b.Loop() {
		pieces := make([]Piece, 20)
		for i := range pieces {
			t, n := r.RedactLines(text, 1)
			pieces[i] = Piece{Evidence: i + 1, Kind: KindFile, Ref: "f.go", Text: t, Redactions: n}
		}
		set := NewSet(transport.Request{Subject: "s", Question: "q"}, pieces, NewNonce(), r)
		set.For(64 << 20)
	}
}
