package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/gitstore/git"
	"git-reason/record"
)

type demoOptions struct {
	base
	Keep bool // keep the scratch repository
}

func demoCommand() *cli.Command {
	o := &demoOptions{}
	return &cli.Command{
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "keep", Usage: "keep the scratch repository and print its path", Destination: &o.Keep},
			o.jsonFlag(),
		},
		Action: noArgs(&o.base, func(c *cli.Context) error {
			return runDemoCommand(c.Context, o)
		}),
	}
}

func runDemoCommand(ctx context.Context, o *demoOptions) error {
	dir, err := os.MkdirTemp("", "git-reason-demo-")
	if err != nil {
		return err
	}
	if !o.Keep {
		defer os.RemoveAll(dir)
	}
	for _, args := range [][]string{
		{"init", "-q", dir},
		{"-C", dir, "config", "user.name", "Demo Person"},
		{"-C", dir, "config", "user.email", "demo@example.invalid"},
	} {
		if _, err := git.Run(ctx, "", args...); err != nil {
			return err
		}
	}
	sess, err := ops.Open(ctx, ops.Options{Dir: dir, Profile: "offline"})
	if err != nil {
		return err
	}
	if !o.JSON {
		// Its path only when it stays, as --json gives it: a path
		// removed when the command ends leads nowhere.
		where := dir
		if !o.Keep {
			where = "removed when the demo ends (--keep keeps it)"
		}
		fmt.Fprintf(o.Out, "scratch repository: %s\n\n", where)
		return runDemo(ctx, o.Out, sess, dir, nil)
	}
	out := &demoJSON{Repository: dir}
	if !o.Keep {
		out.Repository = ""
	}
	if err := runDemo(ctx, devNull{}, sess, dir, out); err != nil {
		return err
	}
	return o.render(out, nil)
}

// demoJSON is what demo --json prints: every record the cycle wrote, the
// task's status and its report; the repository only with --keep.
type demoJSON struct {
	Repository string        `json:"repository,omitempty"`
	Records    []recordJSON  `json:"records"`
	Status     record.Status `json:"status"`
	Report     string        `json:"report"`
}

// runDemo walks one task through assess, plan, conclude, validate and
// attempt, then shows that a second task on the same subject reuses the
// standing conclusion.
func runDemo(ctx context.Context, w io.Writer, sess *ops.Session, dir string, out *demoJSON) error {
	keep := func(res *record.Result) {
		if out != nil {
			out.Records = append(out.Records, recordJSON{Record: res.Record, Commit: res.Commit})
		}
	}
	step := func(kind record.Kind, task string, body any) (*record.Result, error) {
		res, err := sess.Append(ctx, task, kind, ops.Marshal(body))
		if err != nil {
			return nil, fmt.Errorf("demo %s: %w", kind, err)
		}
		keep(res)
		fmt.Fprintf(w, "$ git reason %s %s\n  %s %s: %s\n", verb(kind), task, res.Kind, record.ShortID(res.ID), record.Summary(res.Entry))
		return res, nil
	}
	a, err := step(record.KindAssessment, "db-migration", &record.Assessment{
		Subject: "Orders table migration strategy", Question: "Migrate the orders table online or in a maintenance window?",
		Materiality: "material", Reversibility: "costly",
		Evidence: []record.Evidence{{Kind: "file", Ref: "db/schema.sql", Summary: "orders has 40M rows and three indexes"}},
	})
	if err != nil {
		return err
	}
	p, err := step(record.KindPlan, "db-migration", &record.Plan{Assessment: a.ID})
	if err != nil {
		return err
	}
	concl := &record.Conclusion{Assessment: a.ID, Decision: "Migrate online with a shadow table and a backfill",
		Rationale: "A window costs more than the backfill's risk."}
	for _, item := range p.Derived.(*record.PlanDerived).LocalReview {
		concl.LocalReview = append(concl.LocalReview, record.LocalAnswer{Item: item, Answer: "answered in the design note"})
	}
	k, err := step(record.KindConclusion, "db-migration", concl)
	if err != nil {
		return err
	}
	v, err := sess.RunValidation(ctx, "db-migration", ops.Marshal(&record.Validation{Conclusion: k.ID, Method: "command", Command: "git --version"}), dir, devNull{})
	if err != nil {
		return err
	}
	keep(v)
	fmt.Fprintf(w, "$ git reason validate db-migration --run 'git --version'\n  %s %s: %s\n", v.Kind, record.ShortID(v.ID), record.Summary(v.Entry))
	if _, err := step(record.KindAttempt, "db-migration", &record.Attempt{Conclusion: k.ID, Outcome: "succeeded", Notes: "shadow table in place"}); err != nil {
		return err
	}
	if _, err := step(record.KindAssessment, "db-migration-eu", &record.Assessment{
		Subject: "orders table migration strategy", Question: "Same question for the EU shard?",
		Materiality: "minor", Reversibility: "reversible",
	}); err != nil {
		return err
	}
	st, _, err := sess.State(ctx, "db-migration")
	if err != nil {
		return err
	}
	if out != nil {
		out.Status, out.Report = st.Summarize(), st.Report()
	}
	fmt.Fprintln(w)
	printStatus(w, palette{}, st.Summarize())
	fmt.Fprintf(w, "\n%s", st.Report())
	return nil
}

func verb(k record.Kind) string {
	switch k {
	case record.KindAssessment:
		return "assess"
	case record.KindConclusion:
		return "conclude"
	}
	return string(k)
}

type devNull struct{}

func (devNull) Write(p []byte) (int, error) { return len(p), nil }
