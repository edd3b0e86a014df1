package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
	"git-reason/schemas"
)

type showOptions struct {
	base
	ID       string // a record id or unique prefix
	Question bool   // assemble a consultation's question again
}

func showCommand() *cli.Command {
	o := &showOptions{}
	return &cli.Command{
		Flags: []cli.Flag{o.jsonFlag(),
			&cli.BoolFlag{Name: "question", Usage: "assemble a consultation's question again from the record and the repository, print it, and check it against the recorded SHA-256", Destination: &o.Question}},
		Action: func(c *cli.Context) error {
			o.bind(c)
			defer o.page(c)()
			if !c.Args().Present() {
				return ops.Usage("missing ID: usage: git reason show ID")
			}
			if err := noMoreArgs(c, 1); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return runShow(c.Context, o)
		},
	}
}

func runShow(ctx context.Context, o *showOptions) error {
	sess, err := o.Open()
	if err != nil {
		return err
	}
	if o.Question {
		return showQuestion(ctx, o, sess)
	}
	e, st, sig, err := sess.FindSigned(ctx, o.ID)
	if err != nil {
		return err
	}
	// A record of a task that does not verify is shown with its derived
	// fields as replay recomputes them, and says so first. Its commit and
	// that commit's signature are as the MCP show tool gives them (absent
	// when git could not be asked).
	out := struct {
		*record.Record
		DoesNotVerify *record.Finding `json:"does_not_verify,omitempty"`
		Commit        string          `json:"commit,omitempty"`
		Signature     *ops.Signature  `json:"signature,omitempty"`
	}{Record: e.Record, DoesNotVerify: st.Unverified, Signature: sig}
	if sig != nil {
		out.Commit = sig.Commit
	}
	return o.render(out, func(w io.Writer) error {
		if st.Unverified != nil {
			fmt.Fprintln(w, record.NotVerified(st.Unverified).String())
		}
		fmt.Fprintf(w, "%s %s\ntask:    %s\nclock:   %d\ncreated: %s\nactor:   %s\norigin:  %s\nsurface: %s\nsummary: %s\n",
			e.Kind, e.ID, e.Task, e.Clock, record.Printable(e.Created), record.Printable(e.Actor), record.Printable(e.Origin), surfaceText(e), record.Summary(e))
		if wd := st.Withdrawn(e.ID); wd != nil {
			fmt.Fprintf(w, "withdrawn: by %s (%s): %s\n", wd.ID, record.Printable(wd.Actor), record.Printable(wd.Body.(*record.Withdrawal).Reason))
		}
		fmt.Fprint(w, "\nbody:\n")
		if err := exportJSON(w, e.Body); err != nil {
			return err
		}
		fmt.Fprintln(w, "derived:")
		if err := exportJSON(w, e.Derived); err != nil {
			return err
		}
		if sig != nil {
			fmt.Fprintf(w, "\ncommit:    %s\nsignature: %s\n", sig.Commit, record.Printable(sig.Text))
		}
		return nil
	})
}

// showQuestion prints a consultation's question as assembled again (text)
// or how it compares with the record (--json); a question that differs
// from the recorded one is a failure.
func showQuestion(ctx context.Context, o *showOptions, sess *ops.Session) error {
	r, err := sess.Reassemble(ctx, o.ID)
	if err != nil {
		return err
	}
	o.Output = schemas.Outputs["question"]
	err = o.render(r, func(w io.Writer) error {
		_, err := io.WriteString(w, r.Text)
		return err
	})
	if err != nil {
		return err
	}
	if !r.Matches {
		return failure(fmt.Sprintf("the question assembled again (sha256 %s, %d bytes) differs from the one recorded (sha256 %s, %d bytes): a file of the work tree or a credential variable changed since",
			r.SHA256, r.Bytes, r.Recorded.SHA256, r.Recorded.Bytes))
	}
	if !o.JSON {
		fmt.Fprintf(o.Err, "matches the recorded sha256 %s (%d bytes)\n", r.SHA256, r.Bytes)
	}
	return nil
}

// surfaceText is the surface that wrote a record, as text shows it.
func surfaceText(e *record.Entry) string {
	if s := record.SurfaceOf(e); s != "" {
		return s
	}
	return "(not recorded)"
}
