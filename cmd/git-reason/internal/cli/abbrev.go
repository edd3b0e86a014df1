package cli

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
)

// expandFlags is args with each long option typed as a unique prefix of
// one written out in full, as git's parse-options takes them (git status
// --porc is --porcelain): "--subj=S" is "--subject=S", "--no-p" is
// "--no-pager". The options are those of the verb (and sub-verb) args
// name, and git reason's own. A name typed exactly is never expanded,
// even where it begins another (--open, not --open-only); one-dash
// options, values and everything after "--" are left as they are.
// --no-X, where no option is called no-X or begins with it, negates the
// boolean option X (or the one X begins): --no-js is --json=false.
// --end-of-options, git's "--" for options alone, is "--". A
// prefix that begins more than one option is bad usage naming them, as
// git's "ambiguous option: co (could be --color or --count)": args are
// returned as given with it.
func expandFlags(app *cli.App, args []string) ([]string, error) {
	out := args
	set := func(i int, a string) {
		if &out[0] == &args[0] {
			out = slices.Clone(args) // the caller's stay as given
		}
		out[i] = a
	}
	flags, cmds, path := app.Flags, app.Commands, "git reason"
	for i := 1; i < len(out); i++ {
		a := out[i]
		if a == "--end-of-options" {
			// git's mark for "no option from here on" (git 2.24), for
			// scripts whose arguments may begin with a dash: "--" here.
			set(i, "--")
			break
		}
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			// The verb, then a sub-verb, choose the options; the first
			// argument that names neither ends the choosing.
			cmd := findCommand(cmds, a)
			if cmd == nil {
				cmds = nil
				continue
			}
			flags, cmds, path = append(slices.Clip(cmd.Flags), app.Flags...), cmd.Subcommands, path+" "+cmd.Name
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, value, hasValue := strings.Cut(a[2:], "=")
			full, err := longFlag(append(slices.Clip(flags), cli.HelpFlag), name, path)
			if err != nil {
				return args, err
			}
			if neg, ok := strings.CutPrefix(name, "no-"); ok && full == name && !hasValue && !isFlag(flags, a) {
				// --no-json is --json=false, as git negates a boolean
				// option, when no option is called no-json or begins so.
				if full, err = longFlag(boolFlags(flags), neg, path); err != nil {
					return args, err
				}
				if full == neg && !isFlag(boolFlags(flags), "--"+neg) {
					full = name
				} else {
					value, hasValue = "false", true
				}
			}
			if full != name {
				if hasValue {
					full += "=" + value
				}
				a = "--" + full
				set(i, a)
			}
		}
		if !strings.Contains(a, "=") && takesValue(flags, a) {
			i++ // its value, whatever it looks like
		}
	}
	return out, nil
}

// longFlag is the option of flags that name, typed after "--", stands
// for: name itself when an option has it or none begins with it (the
// flag package then says it is not defined), the one long name it
// begins otherwise. path is the command line of the verb, for its help.
func longFlag(flags []cli.Flag, name, path string) (string, error) {
	if name == "" {
		return name, nil
	}
	var begun []string
	for _, f := range flags {
		names := flagNames(f)
		if slices.Contains(names, name) {
			return name, nil
		}
		for _, n := range names {
			if len(n) > 1 && strings.HasPrefix(n, name) && !slices.Contains(begun, n) {
				begun = append(begun, n)
				break // an alias of the same option is no second choice
			}
		}
	}
	switch len(begun) {
	case 0:
		return name, nil
	case 1:
		return begun[0], nil
	}
	for i := range begun {
		begun[i] = "--" + begun[i]
	}
	last := len(begun) - 1
	return "", ops.Usage("ambiguous option --%s: could be %s or %s (%s)", name, strings.Join(begun[:last], ", "), begun[last], "see '"+path+" -h'")
}

// boolFlags are the flags of flags that take no value.
func boolFlags(flags []cli.Flag) []cli.Flag {
	var bools []cli.Flag
	for _, f := range flags {
		if _, ok := f.(*cli.BoolFlag); ok {
			bools = append(bools, f)
		}
	}
	return bools
}

// findCommand is the command of cmds called name (or one of its
// aliases), nil when none is.
func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}
