package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"git-reason/advisor"
	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

type consultOptions struct {
	base
	Task     string
	Timeout  time.Duration // 0: the slowest advisor's own timeout
	Terminal bool          // stderr is a terminal: show live progress
}

func consultCommand() *cli.Command {
	o := &consultOptions{}
	return &cli.Command{
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "timeout", Usage: "overall deadline for the run, a `DURATION` (90s, 5m)", DefaultText: "the slowest advisor's own timeout", Destination: &o.Timeout},
			profileFlag(),
			o.jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			o.bind(c)
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			task, _, err := o.taskOrBranch(c, 0)
			if err != nil {
				return err
			}
			o.Task = task
			if o.Timeout < 0 || (isSet(c, "timeout") && o.Timeout == 0) {
				return ops.Usage("--timeout must be a positive duration, e.g. 90s")
			}
			o.Terminal = terminal(o.Err) != nil
			return runConsult(c.Context, o)
		},
	}
}

func runConsult(ctx context.Context, o *consultOptions) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	req := ops.ConsultRequest{Task: o.Task, Timeout: o.Timeout}
	if o.Terminal && !o.JSON {
		req.Progress = liveProgress(o.Err)
	}
	res, err := sess.Consult(ctx, req)
	if res != nil {
		if perr := o.print(res); perr != nil && err == nil {
			err = perr
		}
	}
	if errors.Is(err, ctx.Err()) && ctx.Err() != nil {
		return interrupted{}
	}
	if err != nil || res == nil {
		return err
	}
	var failed []string
	for _, r := range res.Results {
		if !r.Completed() && !r.Duplicate {
			failed = append(failed, r.Advisor)
		}
	}
	if len(failed) > 0 {
		// Asked again, an advisor whose last two answers did not read is
		// likely to answer so again, and a plan made anew asks it too
		// (such answers open no circuit): an agent told only to consult
		// again did so for ever. The task's next step offers the way out.
		offer := ""
		if ids := sess.UnreadableLately(failed); len(ids) > 0 {
			without := "them"
			if len(ids) == 1 {
				without = "it"
			}
			set, err := sess.Settings()
			if err != nil {
				return err
			}
			offer = fmt.Sprintf("; or, as the last two answers of %s did not read, '%s' plans without %s",
				strings.Join(ids, ", "), record.PlanWithout(set.Disabled, set.DisabledFromEnv, ids, o.Task), without)
		}
		if len(res.Results) == 1 {
			return failure(fmt.Sprintf("the one advisor asked failed (%s): its outcome is recorded; run 'git reason consult %s' again to ask it anew%s",
				failed[0], o.Task, offer))
		}
		them := "them"
		if len(failed) == 1 {
			them = "it"
		}
		// Some answered: a conclusion may weigh those answers now, which is
		// the next step status gives; asking again is the other way on.
		conclude, answers := "", "answers"
		if len(failed) < len(res.Results) {
			if len(res.Results)-len(failed) == 1 {
				answers = "answer"
			}
			conclude = fmt.Sprintf("conclude with the %s recorded ('git reason status %s' says how), or ", answers, o.Task)
		}
		return failure(fmt.Sprintf("%d of %d advisors failed (%s): every outcome is recorded; %srun 'git reason consult %s' again to ask %s anew%s",
			len(failed), len(res.Results), strings.Join(failed, ", "), conclude, o.Task, them, offer))
	}
	return nil
}

// interrupted is Ctrl-C: outcomes were recorded as cancelled; exit 130.
type interrupted struct{}

func (interrupted) Error() string {
	return "interrupted: unanswered advisors were recorded as cancelled"
}
func (interrupted) exitStatus() int { return 130 }

// liveProgress shows, on a terminal, one line per advisor as it is asked
// and as it answers.
func liveProgress(w io.Writer) func(advisor.Event) {
	var mu sync.Mutex
	start := time.Now()
	return func(ev advisor.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case ev.Asked == nil:
			fmt.Fprintf(w, "  %s: waiting\n", ev.Advisor)
		case ev.Asked.Completed():
			fmt.Fprintf(w, "  %s: answered in %.1f s (%s)\n", ev.Advisor, time.Since(start).Seconds(), ev.Asked.Conclusion.Stance)
		default:
			fmt.Fprintf(w, "  %s: failed: %s after %.1f s\n", ev.Advisor, ev.Asked.Failure.Kind, time.Since(start).Seconds())
		}
	}
}

func (o *consultOptions) print(res *ops.ConsultResult) error {
	rows := res.Rows()
	disagreement := ""
	if res.Disagreement != nil {
		disagreement = res.Disagreement.ID
	}
	out := struct {
		*ops.ConsultResult
		Results      []ops.ConsultRow `json:"results"`
		Disagreement string           `json:"disagreement,omitempty"`
	}{res, rows, disagreement}
	return doneAnyway(o.render(out, func(w io.Writer) error { return printConsult(w, res, rows, disagreement) }),
		fmt.Sprintf("%s recorded in %s", record.Plural(len(rows), "consultation"), o.Task),
		fmt.Sprintf("they are stored, do not consult again (see 'git reason status %s')", o.Task))
}

func printConsult(w io.Writer, res *ops.ConsultResult, rows []ops.ConsultRow, disagreement string) error {
	if res.Planned {
		fmt.Fprintf(w, "the assessment had no plan: planned first (plan %s)\n", record.ShortID(res.Plan))
	}
	if res.Lowered != nil {
		fmt.Fprintln(w, record.Printable(res.Lowered.Notice))
	}
	if len(rows) == 0 && len(res.Skipped) == 0 {
		if len(res.LocalReview) == 0 {
			fmt.Fprintf(w, "plan %s needs no review: conclude with 'git reason conclude %s --decision ...'\n", record.ShortID(res.Plan), res.Task)
			return nil
		}
		fmt.Fprintf(w, "plan %s selected no advisor: the local review is the review; answer it with 'git reason conclude %s --decision ... --local-review N=ANSWER ...'\n", record.ShortID(res.Plan), res.Task)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ADVISOR\tOUTCOME\tMODEL\tTIME\tRECORD")
	for _, r := range rows {
		outcome := r.Stance
		if r.Status == "failed" {
			outcome = "failed: " + r.Failure
		}
		model := "-"
		if r.Model != "" {
			model = r.Model + " (" + r.Source + ")"
		}
		rec := "-"
		if r.Record != "" {
			rec = record.ShortID(r.Record)
		}
		if r.Duplicate {
			rec = "answered by a concurrent run"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1fs\t%s\n", r.Advisor, outcome, model, float64(r.DurationMS)/1000, rec)
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(tw, "%s\tskipped: %s\t-\t-\t-\n", s.Advisor, s.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// What a failure's kind alone does not say (what a malformed answer
	// lacked, which variable is not set): the person declaring an
	// advisor needs it to put it right, not only the record.
	for _, r := range rows {
		if r.Status == "failed" && r.FailureDetail != "" {
			fmt.Fprintf(w, "  %s: %s\n", r.Advisor, record.Printable(r.FailureDetail))
		}
	}
	printQuestions(w, res.Questions)
	if disagreement != "" {
		fmt.Fprintf(w, "advisors disagree: disagreement %s opened; settle it with 'git reason resolve %s %s --decision ... --evidence ...'\n", record.ShortID(disagreement), res.Task, record.ShortID(disagreement))
	}
	return nil
}
