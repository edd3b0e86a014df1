package advisor_test

// The wall time of one consult run over three advisors that each take 1 s,
// as a ratio to 1 s: 1.0 is perfectly concurrent, 3.0 sequential. Run:
//
//	go test ./advisor/ -run '^$' -bench BenchmarkConsultThreeAdvisors -benchtime 10x -count 1
//
// It reports the median run ("median-wall/1s") and the slowest one
// ("max-wall/1s") besides ns/op; the target is a median of at most 1.1.

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"git-reason/advisor"
)

func BenchmarkConsultThreeAdvisors(b *testing.B) {
	const each = time.Second
	ids := []string{"adv-a", "adv-b", "adv-c"}
	var decls []advisor.Declaration
	for i, id := range ids {
		decls = append(decls, chatAdvisor(id, fakeChat(b, each, "", answer("endorse")), fmt.Sprintf("fake-model-%d", i+1)))
	}
	var walls []time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		f := planned(b, ids...) // a fresh task each run: nothing is skipped
		b.StartTimer()
		start := time.Now()
		res := advisor.Consult(context.Background(), f.w, f.run(decls...)).Results
		walls = append(walls, time.Since(start))
		b.StopTimer()
		for _, r := range res {
			if r.Err != nil || !r.Completed() {
				b.Fatalf("%s: completed %v, err %v", r.Advisor, r.Completed(), r.Err)
			}
		}
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(walls)
	b.ReportMetric(float64(walls[len(walls)/2])/float64(each), "median-wall/1s")
	b.ReportMetric(float64(walls[len(walls)-1])/float64(each), "max-wall/1s")
}
