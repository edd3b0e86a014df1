package cli

import (
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

func concludeCommand() *cli.Command {
	return &cli.Command{
		Name:      "conclude",
		Usage:     "record the decision, weighing every consultation (or answering the local review)",
		ArgsUsage: "TASK --decision S [--rationale S] [--weigh ID=TREATMENT:REASON]... [--local-review ITEM=ANSWER]...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "decision", Usage: "what was decided"},
			&cli.StringFlag{Name: "rationale", Usage: "why"},
			&cli.StringSliceFlag{Name: "weigh", Usage: "ID=TREATMENT:REASON, TREATMENT one of adopted, partially_adopted, rejected (one per completed consultation)"},
			&cli.StringSliceFlag{Name: "local-review", Usage: "ITEM=ANSWER, ITEM the checklist item's number or text (when no advisor reviewed)"},
			&cli.StringFlag{Name: "assessment", Usage: "the assessment `ID` (default: the latest)"},
			fileFlag, jsonFlag,
		},
		Action: writeAction(record.KindConclusion, 1, func(c *cli.Context, sess *ops.Session, task string) (any, error) {
			return buildConclusion(c, sess, task)
		}),
	}
}

func buildConclusion(c *cli.Context, sess *ops.Session, task string) (*record.Conclusion, error) {
	st, _, err := sess.State(c.Context, task)
	if err != nil {
		return nil, err
	}
	a := st.LatestAssessment()
	if id := c.String("assessment"); id != "" {
		if a, err = st.Resolve(id); err != nil {
			return nil, err
		}
	}
	if a == nil {
		return nil, ops.Usage("task %s has no assessment yet", task)
	}
	body := &record.Conclusion{Assessment: a.ID, Decision: c.String("decision"), Rationale: c.String("rationale")}
	for _, w := range c.StringSlice("weigh") {
		id, rest, ok1 := strings.Cut(w, "=")
		treatment, reason, ok2 := strings.Cut(rest, ":")
		if !ok1 || !ok2 {
			return nil, ops.Usage("--weigh %q: write ID=TREATMENT:REASON", w)
		}
		body.Weighed = append(body.Weighed, record.Weighed{Consultation: id, Treatment: treatment, Reason: reason})
	}
	var checklist []string
	if p := st.LatestPlan(a.ID); p != nil {
		checklist = p.Derived.(*record.PlanDerived).LocalReview
	}
	for _, lr := range c.StringSlice("local-review") {
		item, answer, ok := strings.Cut(lr, "=")
		if !ok {
			return nil, ops.Usage("--local-review %q: write ITEM=ANSWER, ITEM the item's number", lr)
		}
		if n, err := strconv.Atoi(item); err == nil {
			if n < 1 || n > len(checklist) {
				return nil, ops.Usage("--local-review %d: the plan's checklist has %d items (see 'git reason status %s')", n, len(checklist), task)
			}
			item = checklist[n-1]
		}
		body.LocalReview = append(body.LocalReview, record.LocalAnswer{Item: item, Answer: answer})
	}
	return body, nil
}
