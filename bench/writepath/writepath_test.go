// Package writepath benchmarks the writer's path for one record, from the
// body's JSON to the stored record, over the in-memory store: what the
// body's parsing and checking cost, without git.
//
//	go test ./bench/writepath -run '^$' -bench . -benchmem -count 5
package writepath

import (
	"context"
	"testing"

	"git-reason/record"
)

const assessment = `{"subject":"queue backend","question":"keep the queue in the database?","materiality":"material",` +
	`"reversibility":"costly","needs":["reasoning"],"evidence":[{"kind":"note","summary":"peak load measured at 2k msg/s"},` +
	`{"kind":"file","ref":"db/schema.sql","summary":"orders has 40M rows and three indexes"}]}`

// BenchmarkAppendAssessment writes one assessment per iteration into an
// empty store, so that every append derives the same empty state.
func BenchmarkAppendAssessment(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		w := &record.Writer{Store: record.NewMemStore(), Actor: "Ada Tester <ada@example.invalid>", Origin: "bench"}
		if _, err := w.Append(ctx, "T-1", record.KindAssessment, []byte(assessment)); err != nil {
			b.Fatal(err)
		}
	}
}
