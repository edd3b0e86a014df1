package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/policy"
	"git-reason/record"
)

type trustOptions struct {
	base
	Show, Revoke bool
}

func trustCommand() *cli.Command {
	o := &trustOptions{}
	return &cli.Command{
		Description: "A repository's .reason/advisors.yaml is a stranger's file until you trust it: its new advisors and\n" +
			"the fields that run or send something (transport, adapter, base_url, credential, executable, command,\n" +
			"headers, auth_header, auth_scheme, local, context_bytes, context_tokens, peer_advisor, answers_peers,\n" +
			"workdir) are ignored until then, and so are the fields that change what a record attributes (model, vendor,\n" +
			"provider), profiles' modes, new profiles, and any capabilities, cooldown or timeout that would lower the\n" +
			"review a plan asks for. 'git reason trust' shows every advisor the file adds or changes, what it runs and\n" +
			"where it sends which credential, what records would attribute and what could lower review, and records the\n" +
			"file's SHA-256 for this repository in your configuration directory.\n" +
			"Any change to the file untrusts it. A .reason/allowed_signers counts only once trusted too: trust lists\n" +
			"each signer it allows, and one hash covers both files.\n" +
			"An exec advisor the file declares, or whose fields that run something it sets, runs in the work tree's\n" +
			"top, and trust covers the files of the work tree its command names: the program when it is a path\n" +
			"(./tools/review.sh) and every argument naming a file there (sh scripts/review.sh). trust lists each with\n" +
			"its SHA-256; a pull that changes one, removes it or makes it a symbolic link untrusts the file as a\n" +
			"change to it does, and so does a trust recorded before files were covered. A symbolic link, FIFO,\n" +
			"device or file over 32 MiB there cannot be trusted.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "show", Usage: "only show what the file would run and send; trust nothing", Destination: &o.Show},
			&cli.BoolFlag{Name: "revoke", Usage: "forget the trust recorded for this repository", Destination: &o.Revoke},
			o.jsonFlag(),
		},
		Action: noArgs(&o.base, func(c *cli.Context) error {
			return runTrust(o)
		}),
	}
}

func runTrust(o *trustOptions) error {
	if o.Show && o.Revoke {
		return ops.Usage("give --show or --revoke, not both")
	}
	sess, err := o.Open()
	if err != nil {
		return err
	}
	res, err := sess.Trust(ops.TrustRequest{Revoke: o.Revoke, Show: o.Show})
	if err != nil {
		return err
	}
	err = o.render(res, func(w io.Writer) error {
		if o.Revoke {
			if res.Revoked {
				fmt.Fprintf(w, "trust revoked for %s: its .reason/advisors.yaml and .reason/allowed_signers count for nothing until trusted again\n", record.Printable(res.Repository))
			} else {
				fmt.Fprintf(w, "nothing to revoke: %s was not trusted\n", record.Printable(res.Repository))
			}
			return nil
		}
		files := res.File
		switch {
		case res.NoOverlay:
			files = res.SignersFile
		case res.SignersFile != "":
			files += " and " + res.SignersFile
		}
		fmt.Fprintf(w, "%s (sha256 %s):\n", record.Printable(files), res.SHA256)
		if !res.NoOverlay && len(res.Effects)+len(res.Profiles) == 0 {
			fmt.Fprintln(w, "  changes nothing that runs or sends something, that a record attributes, or that could lower review")
		}
		for _, line := range trustLines(res) {
			fmt.Fprintf(w, "  %s\n", record.Printable(line))
		}
		for _, line := range signerLines(res) {
			fmt.Fprintf(w, "  %s\n", record.Printable(line))
		}
		switch {
		case o.Show && res.Trusted:
			fmt.Fprintln(w, "this content is trusted")
		case o.Show:
			fmt.Fprintln(w, "not trusted: run 'git reason trust' to trust this exact content")
		default:
			fmt.Fprintln(w, "trusted: this exact content takes effect; any change untrusts it ('git reason trust --revoke' undoes it)")
		}
		return nil
	})
	switch {
	case o.Revoke && res.Revoked:
		return doneAnyway(err, "trust revoked for "+record.Printable(res.Repository), "it is revoked (see 'git reason trust --show')")
	case !o.Revoke && !o.Show:
		return doneAnyway(err, "trusted "+record.Printable(res.Repository), "it is trusted (see 'git reason trust --show')")
	}
	return err
}

// trustLines says, one line each, what trusting the overlay changes: what
// runs or is sent, what records attribute, what could lower review, what
// a profile lets a plan ask.
func trustLines(res *ops.TrustResult) []string {
	var out []string
	for _, e := range res.Effects {
		switch {
		case e.New:
			out = append(out, "new advisor "+e.Advisor+": "+e.Declaration.Describe())
		case len(e.Changed) > 0:
			out = append(out, fmt.Sprintf("advisor %s (changes %v): %s", e.Advisor, e.Changed, e.Declaration.Describe()))
		}
		if !e.New && len(e.Attribution) > 0 {
			out = append(out, fmt.Sprintf("advisor %s (changes %v, what a record attributes): %s", e.Advisor, e.Attribution, e.Declaration.DescribeAttribution()))
		}
		if !e.New && len(e.Review) > 0 {
			out = append(out, fmt.Sprintf("advisor %s (changes %v, could lower review): %s", e.Advisor, e.Review, e.Declaration.DescribeReview(e.Review)))
		}
	}
	for _, f := range res.Files {
		what := "file %s, which advisor %s runs (sha256 %s)%s: trust covers its content"
		if strings.HasSuffix(f.Path, "/") {
			what = "directory %s, which advisor %s runs (sha256 %s)%s: trust covers every file under it"
		}
		via, note := "", ""
		if f.Via != "" {
			via = " (" + f.Via + ")"
		}
		if f.Note != "" {
			note = "; " + f.Note // what it runs in turn that trust does not cover
		}
		out = append(out, fmt.Sprintf("work-tree "+what+"; any change to it untrusts the file", f.Path, f.Advisor, f.SHA256, via)+note)
	}
	for _, p := range res.Profiles {
		if p.New {
			out = append(out, fmt.Sprintf("new profile %s (what a plan may ask): mode %s", p.Profile, modeText(p.Mode)))
		} else {
			out = append(out, fmt.Sprintf("profile %s (changes [mode], what a plan may ask): mode %s, was %s", p.Profile, modeText(p.Mode), modeText(p.Was)))
		}
	}
	return out
}

// modeText is a profile's mode as trust shows it: quoted when it is none
// of the modes, since the overlay schema takes any text there and,
// unquoted, "ci, was normal; profile x: mode normal" read as more lines'
// worth of what trusting does.
func modeText(m policy.Mode) string {
	if policy.ValidMode(m) {
		return string(m)
	}
	return fmt.Sprintf("%q (not a mode)", m)
}

// signerLines says, one line each, whom trusting the repository's allowed
// signers lets sign records: their signatures then read as good in
// verify, pull and every read surface, and count where reuse or
// reason.requireSigned asks for an allowed signer.
func signerLines(res *ops.TrustResult) []string {
	if res.SignersFile == "" {
		return nil
	}
	if len(res.Signers) == 0 {
		return []string{"allowed signers: none listed"}
	}
	out := make([]string, 0, len(res.Signers))
	for _, s := range res.Signers {
		switch {
		case s.Key == "":
			out = append(out, fmt.Sprintf("allowed signers line git may read: %s", s.Line))
		case s.Options != "":
			out = append(out, fmt.Sprintf("allowed signer %s: %s (options %s): records it signs read as signed by an allowed signer", s.Principals, s.Key, s.Options))
		default:
			out = append(out, fmt.Sprintf("allowed signer %s: %s: records it signs read as signed by an allowed signer", s.Principals, s.Key))
		}
	}
	return out
}
