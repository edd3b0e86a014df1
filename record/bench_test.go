package record

import (
	"context"
	"encoding/json"
	"testing"
)

// benchRecords writes a material assessment with evidence and its plan,
// the records a replay reads most, and returns them as stored.
func benchRecords(b *testing.B) []*Record {
	ctx := context.Background()
	w := &Writer{Store: NewMemStore(), Actor: "Ada Tester <ada@example.invalid>", Origin: "origin-1"}
	a, err := w.Append(ctx, "T-bench", KindAssessment, []byte(`{"subject":"queue","question":"keep it?",`+
		`"materiality":"material","reversibility":"costly","needs":["reasoning"],`+
		`"evidence":[{"kind":"note","summary":"peak load 2k/s"},{"kind":"note","summary":"two consumers"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	p, err := w.Append(ctx, "T-bench", KindPlan, []byte(`{"assessment":"`+a.ID+`"}`))
	if err != nil {
		b.Fatal(err)
	}
	return []*Record{a.Record, p.Record}
}

// benchStored is benchRecords and each as stored.
func benchStored(b *testing.B) ([]*Record, [][]byte) {
	recs := benchRecords(b)
	data := make([][]byte, len(recs))
	for i, r := range recs {
		var err error
		if data[i], err = json.Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
	return recs, data
}

// BenchmarkReadStored is what replaying a history costs per record in
// this package: each stored record read strictly (parsed, its envelope,
// body and derived fields validated against their schemas, decoded). A
// replay of 50,000 records pays it 50,000 times.
func BenchmarkReadStored(b *testing.B) {
	recs, data := benchStored(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := recs[i%len(recs)]
		if _, err := ReadStored(r.Task, r.FileName(), data[i%len(recs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckRecord is validation alone: a record's envelope, body and
// derived fields checked against their schemas.
func BenchmarkCheckRecord(b *testing.B) {
	recs := benchRecords(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := CheckRecord(recs[i%len(recs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTooDeep is the scan for nesting past MaxNesting that every
// stored record read and every body written goes through, on the records
// BenchmarkReadStored reads: its share of their cost.
func BenchmarkTooDeep(b *testing.B) {
	_, data := benchStored(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, deep := TooDeep(data[i%len(data)]); deep {
			b.Fatal("an honest record is refused")
		}
	}
}
