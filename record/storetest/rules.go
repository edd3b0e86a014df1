package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"git-reason/policy"
	"git-reason/record"
)

// world is one task under test, with the ids of the records made so far.
type world struct {
	t     *testing.T
	w     *record.Writer
	avail *Avail
	task  string
	id    map[string]string
}

func (x *world) add(name string, kind record.Kind, body string) {
	x.t.Helper()
	res, err := x.w.Append(context.Background(), x.task, kind, []byte(x.expand(body)))
	if err != nil {
		x.t.Fatalf("setup %s (%s): %v", name, kind, err)
	}
	x.id[name] = res.ID
}

func (x *world) consult(name, plan, advisor, stance string) {
	x.t.Helper()
	c, m := DriverConsultation(x.id[plan], advisor, stance, record.Model{Name: "model-x", Source: "declared"})
	res, err := x.w.AppendConsultation(context.Background(), x.task, c, m)
	if err != nil {
		x.t.Fatalf("setup %s: %v", name, err)
	}
	x.id[name] = res.ID
}

// expand replaces {name} by the id of the record made under that name.
func (x *world) expand(s string) string {
	for k, v := range x.id {
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s
}

var twoAdvisors = []policy.Advisor{
	{ID: "adv-one", Status: policy.StatusAvailable, Reason: "ready", Capabilities: []string{"reasoning"}},
	{ID: "adv-two", Status: policy.StatusAvailable, Reason: "ready", Capabilities: []string{"reasoning"}},
}

const (
	minor    = `{"subject":"cache layout","question":"which layout?","materiality":"minor","reversibility":"reversible"}`
	critical = `{"subject":"schema migration","question":"online or offline?","materiality":"critical","reversibility":"irreversible","evidence":[{"kind":"file","ref":"db/schema.sql","summary":"current schema"}]}`
)

// Setups a case starts from.
func empty(x *world) {}

func assessed(x *world) { x.add("a", record.KindAssessment, critical) }

func plannedAlone(x *world) {
	assessed(x)
	x.add("p", record.KindPlan, `{"assessment":"{a}"}`)
}

func plannedTwo(x *world) {
	x.avail.Advisors = twoAdvisors
	assessed(x)
	x.add("p", record.KindPlan, `{"assessment":"{a}"}`)
}

func consulted(x *world) {
	plannedTwo(x)
	x.consult("c1", "p", "adv-one", "endorse")
	x.consult("c2", "p", "adv-two", "endorse_with_changes")
}

func disputed(x *world) {
	plannedTwo(x)
	x.consult("c1", "p", "adv-one", "endorse")
	x.consult("c2", "p", "adv-two", "oppose")
	x.add("d", record.KindDisagreement, `{"assessment":"{a}","cites":["{c1}","{c2}"],"summary":"online or not"}`)
}

func resolved(x *world) {
	disputed(x)
	x.add("r", record.KindResolution, `{"disagreement":"{d}","decision":"online","evidence":[{"kind":"note","summary":"load test"}]}`)
}

func concluded(x *world) {
	consulted(x)
	x.add("k", record.KindConclusion, `{"assessment":"{a}","decision":"online","weighed":[{"consultation":"{c1}","treatment":"adopted","reason":"sound"},{"consultation":"{c2}","treatment":"partially_adopted","reason":"half"}]}`)
}

// Setups of a task's life: closed abandoned; validated then the
// validation withdrawn; closed done then reopened.
func closedAbandoned(x *world) {
	assessed(x)
	x.add("z", record.KindClosure, `{"outcome":"abandoned","reason":"not needed"}`)
}

func failedValidation(x *world) {
	concluded(x)
	x.add("v", record.KindValidation, `{"conclusion":"{k}","method":"manual","result":"fail"}`)
}

func withdrawnValidation(x *world) {
	failedValidation(x)
	x.add("w", record.KindWithdrawal, `{"record":"{v}","reason":"run from the wrong directory"}`)
}

func reopened(x *world) {
	closedAbandoned(x)
	x.add("r", record.KindReopening, `{"closure":"{z}"}`)
}

const weighBoth = `"weighed":[{"consultation":"{c1}","treatment":"adopted","reason":"r"},{"consultation":"{c2}","treatment":"rejected","reason":"r"}]`

// ruleCase is one admission decision: from a setup, append one body and
// expect it admitted (want nil) or refused with an error matching want.
type ruleCase struct {
	name  string
	setup func(*world)
	kind  record.Kind
	body  string
	want  error  // nil, record.ErrInput or record.ErrRefused
	msg   string // a fragment the error must contain
	check func(t *testing.T, x *world, res *record.Result)
}

var ruleCases = []ruleCase{
	// Rule 1: assessment.
	{name: "assessment/minor without evidence", setup: empty, kind: record.KindAssessment, body: minor,
		check: func(t *testing.T, x *world, res *record.Result) {
			if d := res.Derived.(*record.AssessmentDerived); d.SubjectKey != "cache layout" {
				t.Errorf("subject_key = %q", d.SubjectKey)
			}
		}},
	{name: "assessment/critical with evidence", setup: empty, kind: record.KindAssessment, body: critical},
	{name: "assessment/material without evidence", setup: empty, kind: record.KindAssessment,
		body: `{"subject":"s","question":"q","materiality":"material","reversibility":"costly"}`, want: record.ErrRefused, msg: "must carry evidence"},
	{name: "assessment/unknown field", setup: empty, kind: record.KindAssessment,
		body: `{"subject":"s","question":"q","materiality":"minor","reversibility":"costly","colour":"red"}`, want: record.ErrInput, msg: "colour"},
	{name: "assessment/writer field id", setup: empty, kind: record.KindAssessment,
		body: `{"id":"01ARZ3NDEKTSV4RRFFQ69G5FAV","subject":"s","question":"q","materiality":"minor","reversibility":"costly"}`, want: record.ErrInput, msg: "'id'"},
	{name: "assessment/writer field subject_key", setup: empty, kind: record.KindAssessment,
		body: `{"subject":"s","subject_key":"x","question":"q","materiality":"minor","reversibility":"costly"}`, want: record.ErrInput, msg: "subject_key"},
	{name: "assessment/bad enum and missing field reported together", setup: empty, kind: record.KindAssessment,
		body: `{"subject":"s","materiality":"huge","reversibility":"costly"}`, want: record.ErrInput, msg: "/materiality"},
	{name: "assessment/not json", setup: empty, kind: record.KindAssessment, body: `{"subject":`, want: record.ErrInput, msg: "not valid JSON"},
	{name: "assessment/control character", setup: empty, kind: record.KindAssessment,
		body: "{\"subject\":\"a\\u0007b\",\"question\":\"q\",\"materiality\":\"minor\",\"reversibility\":\"costly\"}", want: record.ErrInput, msg: "control character"},

	// Rule 2: plan.
	{name: "plan/zero advisors is the local review", setup: assessed, kind: record.KindPlan, body: `{"assessment":"{a}"}`,
		check: func(t *testing.T, x *world, res *record.Result) {
			pd := res.Derived.(*record.PlanDerived)
			if pd.Review != "required" || len(pd.Selected) != 0 || len(pd.LocalReview) == 0 || pd.Snapshot == nil {
				t.Errorf("plan = %+v, want required review answered by a local checklist", pd)
			}
		}},
	{name: "plan/selects and stores the snapshot", setup: func(x *world) { x.avail.Advisors = twoAdvisors; assessed(x) },
		kind: record.KindPlan, body: `{"assessment":"{a}"}`,
		check: func(t *testing.T, x *world, res *record.Result) {
			pd := res.Derived.(*record.PlanDerived)
			if strings.Join(pd.Selected, ",") != "adv-one,adv-two" || len(pd.Snapshot) != 2 || pd.Snapshot[0].Status != "available" {
				t.Errorf("plan = %+v", pd)
			}
		}},
	{name: "plan/by id prefix", setup: assessed, kind: record.KindPlan, body: `{"assessment":"PREFIX:a"}`},
	{name: "plan/unknown assessment", setup: assessed, kind: record.KindPlan, body: `{"assessment":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}`, want: record.ErrInput, msg: "no record"},
	{name: "plan/caller supplies the selection", setup: assessed, kind: record.KindPlan, body: `{"assessment":"{a}","selected":["adv-one"]}`, want: record.ErrInput, msg: "selected"},
	{name: "plan/names a plan", setup: plannedAlone, kind: record.KindPlan, body: `{"assessment":"{p}"}`, want: record.ErrInput, msg: "not an assessment"},
	{name: "plan/after conclusion", setup: concluded, kind: record.KindPlan, body: `{"assessment":"{a}"}`, want: record.ErrRefused, msg: "already concluded"},

	// Rule 3: consultation, through the caller's path.
	{name: "consultation/caller cannot write one", setup: plannedTwo, kind: record.KindConsultation,
		body: `{"plan":"{p}","advisor":"adv-one","status":"completed","conclusion":{"stance":"endorse","summary":"ok","confidence":1},"transport":"api","duration_ms":1}`,
		want: record.ErrRefused, msg: "only by 'git reason consult'"},

	// Rule 4: disagreement.
	{name: "disagreement/caller opens one", setup: consulted, kind: record.KindDisagreement,
		body: `{"assessment":"{a}","cites":["{c1}","{c2}"],"summary":"they differ"}`,
		check: func(t *testing.T, x *world, res *record.Result) {
			if by := res.Derived.(*record.DisagreementDerived).OpenedBy; by != "caller" {
				t.Errorf("opened_by = %q, want caller", by)
			}
		}},
	{name: "disagreement/one citation", setup: consulted, kind: record.KindDisagreement,
		body: `{"assessment":"{a}","cites":["{c1}"],"summary":"s"}`, want: record.ErrInput, msg: "/cites"},
	{name: "disagreement/cites a plan", setup: consulted, kind: record.KindDisagreement,
		body: `{"assessment":"{a}","cites":["{c1}","{p}"],"summary":"s"}`, want: record.ErrRefused, msg: "takes no position"},
	{name: "disagreement/cites an unknown record", setup: consulted, kind: record.KindDisagreement,
		body: `{"assessment":"{a}","cites":["{c1}","01ARZ3NDEKTSV4RRFFQ69G5FAV"],"summary":"s"}`, want: record.ErrInput, msg: "no record"},
	{name: "disagreement/caller sets opened_by", setup: consulted, kind: record.KindDisagreement,
		body: `{"assessment":"{a}","cites":["{c1}","{c2}"],"summary":"s","opened_by":"driver"}`, want: record.ErrInput, msg: "opened_by"},

	// Rule 5: resolution.
	{name: "resolution/settles an open disagreement", setup: disputed, kind: record.KindResolution,
		body: `{"disagreement":"{d}","decision":"online","evidence":[{"kind":"command","ref":"make load","summary":"holds"}]}`},
	{name: "resolution/without evidence", setup: disputed, kind: record.KindResolution,
		body: `{"disagreement":"{d}","decision":"online","evidence":[]}`, want: record.ErrInput, msg: "/evidence"},
	{name: "resolution/already resolved", setup: resolved, kind: record.KindResolution,
		body: `{"disagreement":"{d}","decision":"again","evidence":[{"kind":"note","summary":"x"}]}`, want: record.ErrRefused, msg: "already resolved"},
	{name: "resolution/names a consultation", setup: disputed, kind: record.KindResolution,
		body: `{"disagreement":"{c1}","decision":"x","evidence":[{"kind":"note","summary":"x"}]}`, want: record.ErrInput, msg: "not a disagreement"},

	// Rule 6: conclusion.
	{name: "conclusion/weighs every consultation", setup: consulted, kind: record.KindConclusion,
		body: `{"assessment":"{a}","decision":"online",` + weighBoth + `}`,
		check: func(t *testing.T, x *world, res *record.Result) {
			d := res.Derived.(*record.ConclusionDerived)
			if d.ReviewCount != 2 || strings.Join(d.Advisors, ",") != "adv-one,adv-two" {
				t.Errorf("derived = %+v, want 2 reviews by adv-one, adv-two", d)
			}
		}},
	{name: "conclusion/while disputed", setup: disputed, kind: record.KindConclusion,
		body: `{"assessment":"{a}","decision":"online",` + weighBoth + `}`, want: record.ErrRefused, msg: "is open"},
	{name: "conclusion/after resolution", setup: resolved, kind: record.KindConclusion,
		body: `{"assessment":"{a}","decision":"online",` + weighBoth + `}`},
	{name: "conclusion/misses a consultation", setup: consulted, kind: record.KindConclusion,
		body: `{"assessment":"{a}","decision":"online","weighed":[{"consultation":"{c1}","treatment":"adopted","reason":"r"}]}`,
		want: record.ErrRefused, msg: "must weigh every"},
	{name: "conclusion/weighs a non-consultation", setup: consulted, kind: record.KindConclusion,
		body: `{"assessment":"{a}","decision":"online","weighed":[{"consultation":"{p}","treatment":"adopted","reason":"r"}]}`,
		want: record.ErrRefused, msg: "not a completed consultation"},
	{name: "conclusion/claims a review count", setup: consulted, kind: record.KindConclusion,
		body: `{"assessment":"{a}","decision":"online","review_count":5,` + weighBoth + `}`, want: record.ErrInput, msg: "review_count"},
	{name: "conclusion/without a plan", setup: assessed, kind: record.KindConclusion,
		body: `{"assessment":"{a}","decision":"d"}`, want: record.ErrRefused, msg: "no plan"},
	{name: "conclusion/local review unanswered", setup: plannedAlone, kind: record.KindConclusion,
		body: `{"assessment":"{a}","decision":"d"}`, want: record.ErrRefused, msg: "local review must be answered"},
	{name: "conclusion/local review answered", setup: plannedAlone, kind: record.KindConclusion, body: "LOCAL",
		check: func(t *testing.T, x *world, res *record.Result) {
			if d := res.Derived.(*record.ConclusionDerived); d.ReviewCount != 0 || len(d.Advisors) != 0 {
				t.Errorf("zero-advisor conclusion derived %+v, want review count 0", d)
			}
		}},
	{name: "conclusion/selected advisors never answered", setup: func(x *world) {
		plannedTwo(x)
		x.consult("f", "p", "adv-one", "")
	}, kind: record.KindConclusion, body: `{"assessment":"{a}","decision":"d"}`, want: record.ErrRefused, msg: "has answered"},
	{name: "conclusion/twice", setup: concluded, kind: record.KindConclusion,
		body: `{"assessment":"{a}","decision":"again",` + weighBoth + `}`, want: record.ErrRefused, msg: "already concluded"},
	{name: "conclusion/supersedes the one that stands", setup: concluded, kind: record.KindConclusion,
		body: `{"assessment":"{a}","decision":"again","supersedes":["{k}"],` + weighBoth + `}`,
		check: func(t *testing.T, x *world, res *record.Result) {
			st := x.state()
			if got := st.Standing(); len(got) != 1 || got[0].Conclusion != res.ID {
				t.Errorf("standing %+v, want only the new conclusion %s", got, res.ID)
			}
			if c := st.ConclusionOf(x.id["a"]); c == nil || c.ID != res.ID {
				t.Errorf("ConclusionOf = %v, want %s", c, res.ID)
			}
		}},
	{name: "conclusion/supersedes twice", setup: func(x *world) {
		concluded(x)
		x.add("k2", record.KindConclusion, `{"assessment":"{a}","decision":"again","supersedes":["{k}"],`+weighBoth+`}`)
	}, kind: record.KindConclusion, body: `{"assessment":"{a}","decision":"third","supersedes":["{k}"],` + weighBoth + `}`,
		want: record.ErrRefused, msg: "already superseded"},
	{name: "conclusion/supersedes nothing that stands", setup: consulted, kind: record.KindConclusion,
		body: `{"assessment":"{a}","decision":"d","supersedes":["{c1}"],` + weighBoth + `}`, want: record.ErrInput, msg: "not a conclusion"},
	{name: "conclusion/names one twice", setup: concluded, kind: record.KindConclusion,
		body: `{"assessment":"{a}","decision":"d","supersedes":["{k}","{k}"],` + weighBoth + `}`, want: record.ErrInput, msg: "supersedes"},

	// Rule 7: validation.
	{name: "validation/manual claim", setup: concluded, kind: record.KindValidation, body: `{"conclusion":"{k}","method":"manual","result":"pass"}`,
		check: func(t *testing.T, x *world, res *record.Result) {
			if r := res.Derived.(*record.ValidationDerived).Result; r != "pass" {
				t.Errorf("result = %q", r)
			}
		}},
	{name: "validation/command through the caller's path", setup: concluded, kind: record.KindValidation,
		body: `{"conclusion":"{k}","method":"command","command":"true"}`, want: record.ErrRefused, msg: "--run"},
	{name: "validation/caller claims an exit code", setup: concluded, kind: record.KindValidation,
		body: `{"conclusion":"{k}","method":"manual","result":"pass","exit_code":0}`, want: record.ErrInput, msg: "exit_code"},
	{name: "validation/manual without a result", setup: concluded, kind: record.KindValidation,
		body: `{"conclusion":"{k}","method":"manual"}`, want: record.ErrInput, msg: "result"},
	{name: "validation/names an assessment", setup: concluded, kind: record.KindValidation,
		body: `{"conclusion":"{a}","method":"manual","result":"pass"}`, want: record.ErrInput, msg: "not a conclusion"},

	// Rule 8: attempt.
	{name: "attempt/recorded", setup: concluded, kind: record.KindAttempt, body: `{"conclusion":"{k}","commits":["abc1234"],"outcome":"succeeded"}`},
	{name: "attempt/bad commit", setup: concluded, kind: record.KindAttempt, body: `{"conclusion":"{k}","commits":["not-a-sha"],"outcome":"succeeded"}`, want: record.ErrInput, msg: "/commits/0"},
	{name: "attempt/unknown outcome", setup: concluded, kind: record.KindAttempt, body: `{"conclusion":"{k}","outcome":"maybe"}`, want: record.ErrInput, msg: "/outcome"},

	// A task's life: closure, reopening, withdrawal.
	{name: "closure/abandoned, never concluded", setup: assessed, kind: record.KindClosure, body: `{"outcome":"abandoned"}`,
		check: func(t *testing.T, x *world, res *record.Result) { wantClosed(t, x, "abandoned") }},
	{name: "closure/done without a conclusion", setup: assessed, kind: record.KindClosure, body: `{"outcome":"done"}`, want: record.ErrRefused, msg: "has no conclusion: conclude it first"},
	{name: "closure/done on a standing conclusion", setup: concluded, kind: record.KindClosure, body: `{"outcome":"done"}`,
		check: func(t *testing.T, x *world, res *record.Result) {
			if c := res.Derived.(*record.ClosureDerived).Conclusion; c != x.id["k"] {
				t.Errorf("closed on conclusion %q, want %q", c, x.id["k"])
			}
		}},
	{name: "closure/done on a failed conclusion", setup: failedValidation, kind: record.KindClosure, body: `{"outcome":"done"}`, want: record.ErrRefused, msg: "failed validation"},
	{name: "closure/done once the failure is withdrawn", setup: withdrawnValidation, kind: record.KindClosure, body: `{"outcome":"done"}`},
	{name: "closure/superseded without by", setup: assessed, kind: record.KindClosure, body: `{"outcome":"superseded"}`, want: record.ErrInput, msg: "--by"},
	{name: "closure/by without superseded", setup: assessed, kind: record.KindClosure, body: `{"outcome":"abandoned","by":"other"}`, want: record.ErrInput, msg: "superseded"},
	{name: "closure/superseded by itself", setup: assessed, kind: record.KindClosure, body: `{"outcome":"superseded","by":"T-rules"}`, want: record.ErrInput, msg: "itself"},
	{name: "closure/superseded by a bad name", setup: assessed, kind: record.KindClosure, body: `{"outcome":"superseded","by":"a..b"}`, want: record.ErrInput, msg: "/by"},
	{name: "closure/superseded, a rename", setup: assessed, kind: record.KindClosure, body: `{"outcome":"superseded","by":"T-renamed"}`},
	{name: "closure/empty task", setup: empty, kind: record.KindClosure, body: `{"outcome":"abandoned"}`, want: record.ErrRefused, msg: "task delete"},
	{name: "closure/twice", setup: closedAbandoned, kind: record.KindClosure, body: `{"outcome":"abandoned"}`, want: record.ErrRefused, msg: "reopen"},
	{name: "closure/then a plan", setup: closedAbandoned, kind: record.KindPlan, body: `{"assessment":"{a}"}`, want: record.ErrRefused, msg: "is closed"},
	{name: "closure/then an assessment", setup: closedAbandoned, kind: record.KindAssessment, body: minor, want: record.ErrRefused, msg: "git reason reopen T-rules"},
	{name: "reopening/of the closure", setup: closedAbandoned, kind: record.KindReopening, body: `{"closure":"{z}","reason":"back on"}`,
		check: func(t *testing.T, x *world, res *record.Result) { wantClosed(t, x, "") }},
	{name: "reopening/an open task", setup: reopened, kind: record.KindReopening, body: `{"closure":"{z}"}`, want: record.ErrRefused, msg: "not closed"},
	{name: "reopening/names an assessment", setup: closedAbandoned, kind: record.KindReopening, body: `{"closure":"{a}"}`, want: record.ErrInput, msg: "not a closure"},
	{name: "reopening/then a plan", setup: reopened, kind: record.KindPlan, body: `{"assessment":"{a}"}`},
	{name: "withdrawal/a failed validation", setup: failedValidation, kind: record.KindWithdrawal, body: `{"record":"{v}","reason":"wrong directory"}`,
		check: func(t *testing.T, x *world, res *record.Result) {
			st := x.state()
			if v := st.LatestValidation(x.id["k"]); v != nil {
				t.Errorf("the withdrawn validation %s still counts", v.ID)
			}
			if st.Withdrawn(x.id["v"]) == nil || st.Get(x.id["v"]) == nil {
				t.Errorf("history must keep the validation and show its withdrawal")
			}
			if p := st.Phase(); p != record.PhaseConcluded {
				t.Errorf("phase = %s, want concluded", p)
			}
		}},
	{name: "withdrawal/twice", setup: withdrawnValidation, kind: record.KindWithdrawal, body: `{"record":"{v}","reason":"again"}`, want: record.ErrRefused, msg: "already withdrawn"},
	{name: "withdrawal/a consultation", setup: concluded, kind: record.KindWithdrawal, body: `{"record":"{c1}","reason":"r"}`, want: record.ErrRefused, msg: "a review never disappears"},
	{name: "withdrawal/a conclusion", setup: concluded, kind: record.KindWithdrawal, body: `{"record":"{k}","reason":"r"}`, want: record.ErrRefused, msg: "--supersedes"},
	{name: "withdrawal/an assessment", setup: concluded, kind: record.KindWithdrawal, body: `{"record":"{a}","reason":"r"}`, want: record.ErrRefused, msg: "only a validation or an attempt"},
	{name: "withdrawal/without a reason", setup: failedValidation, kind: record.KindWithdrawal, body: `{"record":"{v}"}`, want: record.ErrInput, msg: "reason"},
	{name: "withdrawal/cited by a disagreement", setup: withdrawnValidation, kind: record.KindDisagreement, body: `{"assessment":"{a}","cites":["{w}","{k}"],"summary":"s"}`, want: record.ErrRefused, msg: "takes no position"},
}

// wantClosed checks the task's closure: outcome "" means open.
func wantClosed(t *testing.T, x *world, outcome string) {
	t.Helper()
	c := x.state().ClosedAs()
	switch {
	case outcome == "" && c != nil:
		t.Errorf("task is closed (%s), want open", c.Outcome)
	case outcome != "" && (c == nil || c.Outcome != outcome):
		t.Errorf("closed = %+v, want outcome %s", c, outcome)
	}
}

func runRules(t *testing.T, newStore Factory) {
	for _, tc := range ruleCases {
		parallel(t, tc.name, func(t *testing.T) {
			s := newStore(t)
			x := &world{t: t, avail: &Avail{}, task: "T-rules", id: map[string]string{}}
			x.w = Writer(s, x.avail)
			tc.setup(x)
			body := x.expand(tc.body)
			if strings.Contains(body, "PREFIX:") {
				body = strings.ReplaceAll(body, "PREFIX:a", strings.ToLower(x.id["a"][:8]))
			}
			if body == "LOCAL" {
				body = localAnswers(t, s, x)
			}
			headBefore, _, _ := s.Load(context.Background(), x.task)
			res, err := x.w.Append(context.Background(), x.task, tc.kind, []byte(body))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if tc.check != nil {
					tc.check(t, x, res)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("error = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not mention %q", err, tc.msg)
			}
			if headAfter, _, _ := s.Load(context.Background(), x.task); headAfter != headBefore {
				t.Errorf("a refused record moved the head from %q to %q", headBefore, headAfter)
			}
		})
	}
	parallel(t, "consultation/driver", func(t *testing.T) { testDriverConsultation(t, newStore(t)) })
}

func localAnswers(t *testing.T, s record.Store, x *world) string {
	_, recs, _ := s.Load(context.Background(), x.task)
	st, err := record.Derive(x.task, recs)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, item := range st.Get(x.id["p"]).Derived.(*record.PlanDerived).LocalReview {
		parts = append(parts, fmt.Sprintf(`{"item":%q,"answer":"considered"}`, item))
	}
	return x.expand(`{"assessment":"{a}","decision":"d","local_review":[` + strings.Join(parts, ",") + `]}`)
}

// testDriverConsultation covers rule 3 on the driver's path, including
// admission against the plan's stored snapshot after a circuit opened.
func testDriverConsultation(t *testing.T, s record.Store) {
	ctx := context.Background()
	x := &world{t: t, avail: &Avail{}, task: "T-drv", id: map[string]string{}}
	x.w = Writer(s, x.avail)
	plannedTwo(x)
	// The circuit of adv-one opens after the plan was made.
	x.avail.Advisors = []policy.Advisor{{ID: "adv-one", Status: policy.StatusOpen, Reason: "two timeouts"}, twoAdvisors[1]}
	ok := &record.Consultation{Plan: x.id["p"], Advisor: "adv-one", Status: "completed", Transport: "api",
		Conclusion: &record.Answer{Stance: "endorse", Summary: "fine", Confidence: 0.9}}
	res, err := x.w.AppendConsultation(ctx, x.task, ok, &record.Model{Name: "model-x", Source: "reported"})
	if err != nil {
		t.Fatalf("an answer to a plan whose advisor's circuit opened later was refused: %v", err)
	}
	if m := res.Derived.(*record.ConsultationDerived).Model; m == nil || m.Name != "model-x" || m.Source != "reported" {
		t.Errorf("model = %+v", m)
	}
	stranger := *ok
	stranger.Advisor = "adv-three"
	if _, err := x.w.AppendConsultation(ctx, x.task, &stranger, &record.Model{Name: "m", Source: "declared"}); !errors.Is(err, record.ErrRefused) {
		t.Errorf("an advisor the plan did not select: %v, want refused", err)
	}
	if _, err := x.w.AppendConsultation(ctx, x.task, ok, nil); !errors.Is(err, record.ErrRefused) {
		t.Errorf("a completed consultation without a model: %v, want refused", err)
	}
	failed := &record.Consultation{Plan: x.id["p"], Advisor: "adv-two", Status: "failed", Transport: "cli",
		Failure: &record.Failure{Kind: "rate_limit", RetryAfterS: 30}}
	if _, err := x.w.AppendConsultation(ctx, x.task, failed, nil); err != nil {
		t.Errorf("a failed consultation: %v", err)
	}
	both := *failed
	both.Conclusion = ok.Conclusion
	if _, err := x.w.AppendConsultation(ctx, x.task, &both, nil); !errors.Is(err, record.ErrInput) {
		t.Errorf("a failed consultation with a conclusion: %v, want bad input", err)
	}
	d := &record.Disagreement{Assessment: x.id["a"], Cites: []string{res.ID, res.ID}, Summary: "s"}
	if _, err := x.w.AppendDriverDisagreement(ctx, x.task, d); !errors.Is(err, record.ErrInput) {
		t.Errorf("a disagreement citing one record twice: %v, want bad input", err)
	}
}

// state derives the task's state from the store, as any reader does.
func (x *world) state() *record.State {
	x.t.Helper()
	_, recs, err := x.w.Store.Load(context.Background(), x.task)
	if err != nil {
		x.t.Fatalf("load %s: %v", x.task, err)
	}
	st, err := record.Derive(x.task, recs)
	if err != nil {
		x.t.Fatalf("derive %s: %v", x.task, err)
	}
	return st
}
