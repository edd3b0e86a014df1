package cli

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type concludeOptions struct {
	writeOptions
	Decision    string
	Rationale   string
	Weigh       []string // ID=TREATMENT:REASON
	LocalReview []string // ITEM=ANSWER
	Supersedes  []string // conclusion ids
	Assessment  string   // default: the task's latest
}

func concludeCommand() *cli.Command {
	o := &concludeOptions{}
	return &cli.Command{
		Description: "On a terminal, without --decision, opens the editor git would use (git var GIT_EDITOR:\n" +
			"GIT_EDITOR, core.editor, VISUAL, EDITOR) on a template in the git directory (REASON_EDITMSG):\n" +
			"the question, a 'decision:' and a 'rationale:' line, a 'weigh ID=' line for each answer to\n" +
			"weigh and a 'local-review N=' line for each checklist item to answer, prefilled from the\n" +
			"flags. Lines starting with '#' are ignored, as git commit ignores them. An empty file or an\n" +
			"empty decision aborts with nothing written (exit 2, as a missing --decision); an editor\n" +
			"that fails writes nothing (exit 1). A conclusion the writer refuses keeps what was written in\n" +
			"the git directory (reason/conclude/TASK.EDITMSG), and the next conclude of the task opens it in\n" +
			"place of the template, unless --rationale, --weigh or --local-review prefill a new one; it goes\n" +
			"once a conclusion is admitted or its decision is left empty.\n" +
			"Without a terminal a missing --decision is an error (exit 2).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "decision", Usage: "what was decided, as `TEXT`", Destination: &o.Decision},
			&cli.StringFlag{Name: "rationale", Usage: "why, as `TEXT`", Destination: &o.Rationale},
			&cli.StringSliceFlag{Name: "weigh", Usage: "a `WEIGHING` as ID=TREATMENT:REASON, TREATMENT one of adopted, partially_adopted, rejected (one per completed consultation)"},
			&cli.StringSliceFlag{Name: "local-review", Usage: "an `ANSWER` to the local review as ITEM=ANSWER, ITEM the checklist item's number or text (when no advisor reviewed)"},
			&cli.StringSliceFlag{Name: "supersedes", Usage: "a conclusion `ID` this one replaces: every conclusion of the assessment that stands (two, after a merge of two clones that both concluded)"},
			latestFlag("assessment", &o.Assessment),
			o.fileFlag(), o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			// On a terminal a missing decision is written in the editor
			// (conclude_edit.go).
			missing := requireFlags(c, "decision")
			if missing != nil && !onTerminal(c) {
				return missing
			}
			if _, err := o.parse(c, 0); err != nil {
				return err
			}
			o.Weigh, o.LocalReview, o.Supersedes = c.StringSlice("weigh"), c.StringSlice("local-review"), c.StringSlice("supersedes")
			if missing != nil {
				d, err := o.edit(c)
				if err != nil {
					return err
				}
				return d.settle(runConclude(c.Context, o))
			}
			return runConclude(c.Context, o)
		},
	}
}

func runConclude(ctx context.Context, o *concludeOptions) error {
	return o.write(ctx, record.KindConclusion, func(sess *ops.Session) (any, error) { return o.build(ctx, sess) })
}

// assessment reads the task's state and the assessment the conclusion
// settles: the one --assessment names, else the latest.
func (o *concludeOptions) assessment(ctx context.Context, sess *ops.Session) (*record.State, *record.Entry, error) {
	st, _, err := sess.State(ctx, o.Task)
	if err != nil {
		return nil, nil, err
	}
	a := st.LatestAssessment()
	if o.Assessment != "" {
		if a, err = st.Resolve(o.Assessment); err != nil {
			return nil, nil, err
		}
	}
	if a == nil {
		return nil, nil, ops.Usage("task %s has no assessment yet", o.Task)
	}
	return st, a, nil
}

// parseWeigh reads a --weigh ID=TREATMENT:REASON.
func parseWeigh(w string) (record.Weighed, error) {
	id, rest, ok1 := strings.Cut(w, "=")
	treatment, reason, ok2 := strings.Cut(rest, ":")
	if !ok1 || !ok2 {
		return record.Weighed{}, ops.Usage("--weigh %q: write ID=TREATMENT:REASON", w)
	}
	return record.Weighed{Consultation: id, Treatment: treatment, Reason: reason}, nil
}

// parseLocalReview reads a --local-review ITEM=ANSWER.
func parseLocalReview(lr string) (item, answer string, err error) {
	item, answer, ok := strings.Cut(lr, "=")
	if !ok {
		return "", "", ops.Usage("--local-review %q: write ITEM=ANSWER, ITEM the item's number", lr)
	}
	return item, answer, nil
}

// build reads the flags into a conclusion body; local-review items may be
// named by their number in the plan's checklist.
func (o *concludeOptions) build(ctx context.Context, sess *ops.Session) (*record.Conclusion, error) {
	st, a, err := o.assessment(ctx, sess)
	if err != nil {
		return nil, err
	}
	body := &record.Conclusion{Assessment: a.ID, Decision: o.Decision, Rationale: o.Rationale, Supersedes: o.Supersedes}
	for _, w := range o.Weigh {
		weighed, err := parseWeigh(w)
		if err != nil {
			return nil, err
		}
		body.Weighed = append(body.Weighed, weighed)
	}
	var checklist []string
	p := st.LatestPlan(a.ID)
	if p == nil {
		// Re-assessing starts the review anew: the old plan's checklist
		// answers the old assessment, not this one.
		return nil, ops.Refused("assessment %s has no plan: run 'git reason plan %s', then consult or answer its local review, before concluding", record.ShortID(a.ID), o.Task)
	}
	checklist = p.Derived.(*record.PlanDerived).LocalReview
	answered := map[string]string{} // item: the flag's value that answered it
	for _, lr := range o.LocalReview {
		item, answer, err := parseLocalReview(lr)
		if err != nil {
			return nil, err
		}
		if n, err := strconv.Atoi(item); err == nil {
			if n < 1 || n > len(checklist) {
				return nil, ops.Usage("--local-review %d: the plan's checklist has %s (see 'git reason status %s')", n, record.Plural(len(checklist), "item"), o.Task)
			}
			item = checklist[n-1]
		} else if !slices.Contains(checklist, item) {
			// The writer refuses it too, but names the body's field
			// (local_review), which is not what was typed.
			return nil, ops.Usage("--local-review %s: not an item of the plan's checklist (see 'git reason status %s')", typed(item), o.Task)
		}
		if first, ok := answered[item]; ok {
			return nil, ops.Usage("--local-review %s: item %d is answered twice (also by --local-review %s): give one answer per item", typed(lr), slices.Index(checklist, item)+1, typed(first))
		}
		answered[item] = lr
		body.LocalReview = append(body.LocalReview, record.LocalAnswer{Item: item, Answer: answer})
	}
	return body, nil
}
