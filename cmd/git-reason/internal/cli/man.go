package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/cmd/git-reason/internal/settings"
)

type manOptions struct {
	base
	Install bool
}

func manCommand() *cli.Command {
	o := &manOptions{}
	return &cli.Command{
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "install", Usage: "write git-reason.1 under $XDG_DATA_HOME/man/man1 (default ~/.local/share/man/man1) and print where", Destination: &o.Install},
		},
		Action: noArgs(&o.base, func(c *cli.Context) error {
			return runMan(c.App, o)
		}),
	}
}

func runMan(app *cli.App, o *manOptions) error {
	page := manPage(app)
	if !o.Install {
		_, err := o.Out.Write(page)
		return err
	}
	dir, err := manDir()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("install the manual page: %w", err)
	}
	path := filepath.Join(dir, "git-reason.1")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		return fmt.Errorf("install the manual page: %w", err)
	}
	fmt.Fprintf(o.Out, "%s\n", path)
	fmt.Fprintf(o.Err, "installed git-reason(1): 'git help reason' and 'man git-reason' show it (when %s is not on man's path, add it to MANPATH)\n", filepath.Dir(dir))
	return nil
}

// manDir is where a user's manual pages go without privileges: the XDG
// data directory that man-db searches for a ~/.local/bin on PATH.
func manDir() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "man", "man1"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", ops.Usage("no home directory to install the manual page in: set HOME or XDG_DATA_HOME")
	}
	return filepath.Join(home, ".local", "share", "man", "man1"), nil
}

// manPage renders git-reason(1) in roff: the command definitions (the
// same the help prints), the sections only a person can write, and the
// configuration table from the one list docs/CONFIGURATION.md prints too.
func manPage(app *cli.App) []byte {
	var r roff
	r.req("TH", "git-reason", "1", `""`, `"git reason"`, `"Git Manual"`)
	r.req("nh")
	r.req("ad", "l")
	r.req("SH", "NAME")
	r.line(`git-reason \- ` + esc(app.Usage))
	r.req("SH", "SYNOPSIS")
	r.req("nf")
	r.line(bold("git reason") + " [" + bold("--profile") + " " + italic("P") + "] [" + bold("--no-pager") + "] " +
		italic("COMMAND") + " [" + italic("OPTIONS") + "] [" + italic("ARGUMENTS") + "...]")
	r.line(bold("git reason --version"))
	r.req("fi")
	r.req("SH", "DESCRIPTION")
	r.para(manDescription)
	r.req("SH", "GLOBAL OPTIONS")
	for _, f := range app.Flags {
		r.flagItem(f)
	}
	r.req("SH", "COMMANDS")
	for _, c := range app.Commands {
		manCommandSection(&r, "", c)
	}
	r.req("SH", "CONFIGURATION")
	r.para("Read from git configuration (every scope, `git -c` on top); the environment and flags named win.")
	for _, d := range settings.Docs {
		r.item(inline(d.Key), fmt.Sprintf("%s. Default: %s. Read by: %s. Overrides: %s.", d.Type, d.Default, d.ReadBy, d.Overrides))
	}
	for _, s := range manSections() {
		r.req("SH", s.title)
		for _, e := range s.entries {
			if e.term == "" {
				r.req("PP")
				r.para(e.text)
				continue
			}
			r.item(e.term, e.text)
		}
		if s.example != "" {
			r.example(s.example)
		}
	}
	return []byte(r.b.String())
}

// manCommandSection writes one verb: how it is called, what it does and
// its options, then each of its sub-verbs the same way.
func manCommandSection(r *roff, parent string, c *cli.Command) {
	if c.Hidden || c.Name == "help" {
		return
	}
	name := strings.TrimSpace(parent + " " + c.Name)
	if strings.Contains(name, " ") {
		r.req("SS", `"`+esc(name)+`"`)
	} else {
		r.req("SS", esc(name))
	}
	if len(c.Subcommands) == 0 {
		// ArgsUsage spells out the verb's arguments and options, as its help does.
		r.line(strings.TrimSpace(bold("git reason "+name) + " " + esc(c.ArgsUsage)))
		r.req("PP")
	}
	r.para(c.Usage + ".")
	if c.Description != "" {
		r.req("PP")
		r.para(c.Description)
	}
	for _, f := range c.Flags {
		if f.Names()[0] != "help" {
			r.flagItem(f)
		}
	}
	for _, sub := range c.Subcommands {
		manCommandSection(r, name, sub)
	}
}

const manDescription = `git reason keeps engineering reasoning as typed, schema-validated records in git: an assessment of what is uncertain, a plan computed from policy, consultations of advisors asked concurrently and blind, disagreements resolved with evidence, a conclusion, validations and attempts. Each task's records are commits on refs/reasoning/tasks/TASK, readable with plain git, shared through any git remote, and admitted by rule at every write and every pull.`

// manSection is one hand-written section of the page: entries (a term in
// roff and its text; no term: a paragraph), then an example typed as is.
type manSection struct {
	title   string
	entries []manEntry
	example string
}

type manEntry struct{ term, text string }

// manSections are built when the page is: bold() runs on each term, and
// a package-level value would be built at start-up by every command.
func manSections() []manSection {
	return []manSection{
		{title: "ENVIRONMENT", entries: []manEntry{
			{bold("GIT_REASON_PROFILE"), "the execution profile, when --profile is not given."},
			{bold("GIT_REASON_DISABLE"), "advisor ids to switch off, replacing reason.disable."},
			{bold("CI"), "when true and no profile is named, the ci profile (no advisor is asked)."},
			{bold("NO_COLOR"), "when non-empty, no colour unless color.reason or color.ui says always."},
			{bold("GIT_PAGER") + ", " + bold("PAGER"), "the pager, as for git."},
			{bold("GIT_PROGRESS_DELAY"), "seconds before a read or verification of every task shows its progress on a terminal (2 when unset), as for git."},
			{bold("XDG_CONFIG_HOME") + ", " + bold("HOME"), "where the user overlay lives."},
			{bold("XDG_DATA_HOME"), "where man --install writes."},
			{bold("GIT_DIR") + ", " + bold("GIT_WORK_TREE") + ", " + bold("GIT_COMMON_DIR") + ", " + bold("GIT_CEILING_DIRECTORIES"), "which repository, as for git."},
		}},
		{title: "FILES", entries: []manEntry{
			{bold(".reason/advisors.yaml"), "the repository's advisors, profiles and policy overlay, committed with the code."},
			{bold("$XDG_CONFIG_HOME/git-reason/advisors.yaml"), "the user's overlay (default ~/.config/git-reason)."},
			{bold(".git/reason/"), "this clone's journal of outcomes (circuits) and other local state; never shared."},
			{bold("refs/reasoning/tasks/TASK"), "each task's history of records."},
		}},
		{title: "EXIT STATUS", entries: []manEntry{
			{bold("0"), "done."},
			{bold("1"), "failure: git or I/O failed, or what a verb observed failed (an advisor in consult, the command in validate --run); the outcome is still recorded."},
			{bold("2"), "bad usage or input: no verb (the help is printed), an unknown verb or option, a missing flag, a configuration value git reason or git cannot read, a revision or record that does not exist; nothing is written."},
			{bold("3"), "refused by a rule: admission, neutrality, verification; nothing is written."},
			{bold("130"), "interrupted (Ctrl-C), with nothing said, as for git (consult says which advisors it recorded as cancelled): a record is written whole or not at all, and what a read of every task had read is kept for the next command."},
			{bold("141"), "the pager was quit, or the reader of the output went away, before the end of the output; nothing is said, as for git."},
		}},
		{title: "EXAMPLES", entries: []manEntry{{"", "Assess, plan, review and conclude a decision; share tasks through a remote; install this page:"}},
			example: `
git reason assess db-migration --subject "Orders table migration" \
  --question "Online or in a window?" --materiality material --reversibility costly
git reason plan db-migration
git reason consult db-migration
git reason conclude db-migration --decision "Online, shadow table" --weigh ID=adopted:REASON
git reason validate db-migration --run "make test"
git reason log db-migration

git reason sync origin

git reason man --install
`},
		{title: "SEE ALSO", entries: []manEntry{{"", "git(1), git-config(1), docs/CONFIGURATION.md"}}},
	}
}
