package transport

// FuzzNormalise: an advisor's raw output
// through Normalise. It must never panic, and:
//
//   - a failure is a *Failure of kind empty (the output is blank) or
//     malformed (anything else), whose detail is short, valid UTF-8 and
//     quotes no output;
//   - a conclusion is within the record's limits: a valid stance, a
//     non-blank trimmed summary of at most 4000 characters, at most 50
//     non-blank trimmed recommendations and risks of at most 2000
//     characters each, a confidence in 0..1;
//   - normalising the conclusion's own JSON gives the same conclusion;
//   - the writer admits it: recorded as a completed consultation (the
//     driver's path, AppendConsultation) over a memory store, it is stored,
//     as Normalise's contract promises.
//
// Seeds live in testdata/fuzz/FuzzNormalise/. Long run:
// go test ./advisor/transport/ -run '^$' -fuzz FuzzNormalise -fuzztime 5m

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"git-reason/policy"
	"git-reason/record"
	"git-reason/record/storetest"
)

const fzTask = "T-fz"

var (
	fzOnce  sync.Once
	fzRecs  []*record.Record
	fzPlan  string
	fzAvail = &storetest.Avail{Advisors: []policy.Advisor{{ID: "adv-fz", Status: policy.StatusAvailable,
		Reason: "ready", Capabilities: []string{"reasoning"}}}}
	fzErr error
)

// fzWorld is a task assessed and planned with adv-fz selected, built once;
// each input is recorded on a fresh copy of it.
func fzWorld(tb testing.TB) *record.MemStore {
	fzOnce.Do(func() {
		ctx := context.Background()
		s := record.NewMemStore()
		w := storetest.Writer(s, fzAvail)
		a, err := w.Append(ctx, fzTask, record.KindAssessment, []byte(`{"subject":"retry policy","question":"retry on 5xx?","materiality":"material","reversibility":"costly","evidence":[{"kind":"note","summary":"outage log"}]}`))
		if err != nil {
			fzErr = err
			return
		}
		p, err := w.Append(ctx, fzTask, record.KindPlan, []byte(`{"assessment":"`+a.ID+`"}`))
		if err != nil {
			fzErr = err
			return
		}
		if sel := p.Derived.(*record.PlanDerived).Selected; len(sel) != 1 || sel[0] != "adv-fz" {
			fzErr = errors.New("the plan did not select adv-fz")
			return
		}
		fzPlan = p.ID
		_, fzRecs, fzErr = s.Load(ctx, fzTask)
	})
	if fzErr != nil {
		tb.Fatalf("build the world: %v", fzErr)
	}
	s := record.NewMemStore()
	head := ""
	for _, r := range fzRecs {
		cp := *r
		var err error
		if head, err = s.Append(context.Background(), fzTask, head, &cp); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

func FuzzNormalise(f *testing.F) {
	fzWorld(f)
	f.Add(`{"stance":"endorse","summary":"fine","confidence":0.5}`)
	f.Fuzz(func(t *testing.T, output string) {
		c, err := Normalise(output)
		if err != nil {
			t.Logf("failure: %v", err)
			var fl *Failure
			switch {
			case !errors.As(err, &fl):
				t.Fatalf("Normalise failed with %T, not a *Failure: %v", err, err)
			case strings.TrimSpace(output) == "" && fl.Kind != Empty:
				t.Errorf("blank output gave %s, want empty", fl.Kind)
			case strings.TrimSpace(output) != "" && fl.Kind != Malformed:
				t.Errorf("output gave %s, want malformed", fl.Kind)
			case len(fl.Detail) > maxDetail+len("…") || !utf8.ValidString(fl.Detail):
				t.Errorf("failure detail is too long or not UTF-8: %q", fl.Detail)
			case len(output) >= 8 && strings.Contains(output, "{") && strings.Contains(fl.Detail, output):
				t.Errorf("failure detail quotes the output: %q", fl.Detail)
			}
			return
		}
		t.Logf("conclusion: %s, confidence %v", c.Stance, c.Confidence)
		checkLimits(t, c)
		raw, _ := json.Marshal(c)
		again, err := Normalise(string(raw))
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Errorf("normalising the conclusion's own JSON gives %+v, %v; want %+v", again, err, c)
		}

		s := fzWorld(t)
		w := storetest.Writer(s, fzAvail)
		cons := &record.Consultation{Plan: fzPlan, Advisor: "adv-fz", Status: "completed", Transport: "api", DurationMS: 1,
			Conclusion: &c}
		body, _ := json.Marshal(cons)
		if _, err := w.AppendConsultation(context.Background(), fzTask, cons, &record.Model{Name: "made-up-model", Source: "reported"}); err != nil {
			t.Errorf("the writer refuses a conclusion Normalise returned (%d bytes of body): %v", len(body), err)
		}
	})
}

// checkLimits holds the record schema's limits on a conclusion.
func checkLimits(t *testing.T, c record.Answer) {
	t.Helper()
	if !slices.Contains(Stances(), c.Stance) {
		t.Errorf("stance %q is not one of %v", c.Stance, Stances())
	}
	if c.Summary == "" || c.Summary != strings.TrimSpace(c.Summary) || utf8.RuneCountInString(c.Summary) > maxSummary {
		t.Errorf("summary %.80q is blank, untrimmed or longer than %d characters", c.Summary, maxSummary)
	}
	if math.IsNaN(c.Confidence) || c.Confidence < 0 || c.Confidence > 1 {
		t.Errorf("confidence %v is outside 0..1", c.Confidence)
	}
	for name, list := range map[string][]string{"recommendations": c.Recommendations, "risks": c.Risks} {
		if list == nil || len(list) > maxItems {
			t.Errorf("%s is nil or has %d items, more than %d", name, len(list), maxItems)
		}
		for _, s := range list {
			if s == "" || s != strings.TrimSpace(s) || utf8.RuneCountInString(s) > maxItem {
				t.Errorf("%s item %.80q is blank, untrimmed or longer than %d characters", name, s, maxItem)
			}
		}
	}
}
