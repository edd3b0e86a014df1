package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/cmd/git-reason/internal/settings"
)

type manOptions struct {
	base
	Install bool
	Home    string // where --install writes: $XDG_DATA_HOME, else $HOME/.local/share
}

func manCommand() *cli.Command {
	o := &manOptions{}
	return &cli.Command{
		Name:      "man",
		Usage:     "print the manual page git-reason(1), or install it where man finds it",
		ArgsUsage: "[--install]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "install", Usage: "write git-reason.1 under $XDG_DATA_HOME/man/man1 (default ~/.local/share/man/man1) and print where", Destination: &o.Install},
		},
		Action: func(c *cli.Context) error {
			o.bind(c)
			if err := noMoreArgs(c, 0); err != nil {
				return err
			}
			return runMan(c.App, o)
		},
	}
}

func runMan(app *cli.App, o *manOptions) error {
	page, err := manPage(app)
	if err != nil {
		return err
	}
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

// manPage renders git-reason(1): the command definitions as urfave/cli
// documents them, then the sections only a person can write, and the
// configuration table from the one list docs/CONFIGURATION.md prints too.
func manPage(app *cli.App) ([]byte, error) {
	doc := *app
	doc.Name = "git-reason"
	doc.Description = manDescription
	doc.UsageText = "git reason [--profile P] COMMAND [OPTIONS] [ARGUMENTS...]"
	var cmds []*cli.Command
	for _, c := range app.Commands {
		if !c.Hidden && c.Name != "help" {
			cmds = append(cmds, c)
		}
	}
	doc.Commands = cmds
	md, err := doc.ToMarkdown()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("% git-reason 1\n\n")
	b.WriteString(md)
	b.WriteString("\n# CONFIGURATION\n\nRead from git configuration (every scope, `git -c` on top); the environment and flags named win.\n\n")
	for _, d := range settings.Docs {
		fmt.Fprintf(&b, "**%s**\n\n: %s. Default: %s. Read by: %s. Overrides: %s.\n\n", strings.Trim(d.Key, "`"), d.Type, d.Default, d.ReadBy, d.Overrides)
	}
	b.WriteString(manTail)
	return md2man.Render([]byte(b.String())), nil
}

const manDescription = `git reason keeps engineering reasoning as typed, schema-validated records in git: an assessment of what is uncertain, a plan computed from policy, consultations of advisors asked concurrently and blind, disagreements resolved with evidence, a conclusion, validations and attempts. Each task's records are commits on refs/reasoning/tasks/TASK, readable with plain git, shared through any git remote, and admitted by rule at every write and every pull.`

const manTail = `
# ENVIRONMENT

**GIT_REASON_PROFILE**
: the execution profile, when --profile is not given.

**GIT_REASON_DISABLE**
: advisor ids to switch off, replacing reason.disable.

**CI**
: when true and no profile is named, the ci profile (no advisor is asked).

**NO_COLOR**
: when non-empty, no colour unless color.reason or color.ui says always.

**GIT_PAGER**, **PAGER**
: the pager, as for git.

**XDG_CONFIG_HOME**, **HOME**
: where the user overlay lives; **XDG_DATA_HOME**: where man --install writes.

**GIT_DIR**, **GIT_WORK_TREE**, **GIT_COMMON_DIR**, **GIT_CEILING_DIRECTORIES**
: which repository, as for git.

# FILES

**.reason/advisors.yaml**
: the repository's advisors, profiles and policy overlay, committed with the code.

**$XDG_CONFIG_HOME/git-reason/advisors.yaml**
: the user's overlay (default ~/.config/git-reason).

**.git/reason/**
: this clone's journal of outcomes (circuits) and other local state; never shared.

**refs/reasoning/tasks/TASK**
: each task's history of records.

# EXIT STATUS

**0**
: done.

**1**
: failure: git or I/O failed, or what a verb observed failed (an advisor in consult, the command in validate --run); the outcome is still recorded.

**2**
: bad usage or input: an unknown verb or flag, a missing flag, a revision or record that does not exist; nothing is written.

**3**
: refused by a rule: admission, neutrality, verification; nothing is written.

# EXAMPLES

Assess, plan, review and conclude a decision:

    git reason assess db-migration --subject "Orders table migration" \
      --question "Online or in a window?" --materiality material --reversibility costly
    git reason plan db-migration
    git reason consult db-migration
    git reason conclude db-migration --decision "Online, shadow table" --weigh ID=adopted:REASON
    git reason validate db-migration --run "make test"
    git reason log db-migration

Share tasks through a remote:

    git reason sync origin

Install this page:

    git reason man --install

# SEE ALSO

git(1), git-config(1), docs/CONFIGURATION.md
`
