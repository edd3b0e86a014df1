package cli

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"
)

// advisorRow is one declared advisor as 'git reason advisors' shows it.
type advisorRow struct {
	ID           string   `json:"id"`
	Transport    string   `json:"transport"`
	Adapter      string   `json:"adapter"`
	Status       string   `json:"status"`
	Reason       string   `json:"reason"`
	Until        string   `json:"until,omitempty"`
	Capabilities []string `json:"capabilities"`
	Local        bool     `json:"local"`
}

func advisorsCommand() *cli.Command {
	return &cli.Command{
		Name:  "advisors",
		Usage: "list every declared advisor with its transport and availability (contacts nothing)",
		Flags: []cli.Flag{&cli.StringFlag{Name: "profile", Usage: "execution profile"}, jsonFlag},
		Action: func(c *cli.Context) error {
			if err := noMoreArgs(c, 0); err != nil {
				return err
			}
			sess, err := open(c)
			if err != nil {
				return err
			}
			cat, _, err := sess.Catalog()
			if err != nil {
				return err
			}
			prof, snap, err := sess.Availability(c.Context, time.Now())
			if err != nil {
				return err
			}
			rows := make([]advisorRow, 0, len(snap))
			for _, a := range snap {
				d, _ := cat.Advisor(a.ID)
				rows = append(rows, advisorRow{ID: a.ID, Transport: d.Transport, Adapter: d.Adapter,
					Status: string(a.Status), Reason: a.Reason, Until: a.Until,
					Capabilities: append([]string{}, a.Capabilities...), Local: a.Local})
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, struct {
					Profile  string       `json:"profile"`
					Mode     string       `json:"mode"`
					Advisors []advisorRow `json:"advisors"`
				}{prof.ID, string(prof.Mode), rows})
			}
			fmt.Fprintf(c.App.ErrWriter, "profile %s (mode %s)\n", prof.ID, prof.Mode)
			tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ADVISOR\tTRANSPORT\tSTATUS\tUNTIL\tREASON")
			for _, r := range rows {
				until := r.Until
				if until == "" {
					until = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Transport, r.Status, until, r.Reason)
			}
			return tw.Flush()
		},
	}
}
