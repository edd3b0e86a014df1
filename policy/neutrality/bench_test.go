package neutrality

import (
	"strings"
	"testing"
)

// BenchmarkMatcherFind measures the scan alone over code-like text with a
// few occurrences; the whole-process comparison with git grep is in
// bench/neutrality.
func BenchmarkMatcherFind(b *testing.B) {
	m, err := NewMatcher(testTerms)
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		sb.WriteString("\tif err := requestHandler.ParseConfig(ctx, buffer_index); err != nil {\n")
		sb.WriteString("\t\treturn fmt.Errorf(\"parse surface config %d: %w\", offset, err) // replaceable\n")
		if i%50 == 0 {
			sb.WriteString("\tclient := newAcmeCloudClient(ZETA_TOKEN)\n")
		}
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if len(m.Find(data)) == 0 {
			b.Fatal("no match")
		}
	}
}
