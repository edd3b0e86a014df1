package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestLongFlag(t *testing.T) {
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "open"},
		&cli.BoolFlag{Name: "open-only"},
		&cli.IntFlag{Name: "max-count", Aliases: []string{"n", "max"}},
		&cli.StringFlag{Name: "http"},
		cli.HelpFlag,
	}
	for _, tc := range []struct{ typed, want, err string }{
		{"open", "open", ""},       // whole, though it begins open-only
		{"open-", "open-only", ""}, // unique prefix
		{"ope", "", "ambiguous option --ope: could be --open or --open-only (see 'git reason x -h')"},
		{"ma", "max-count", ""}, // two names of one option: one choice
		{"n", "n", ""},          // a one-letter name typed with two dashes is that name
		{"h", "h", ""},          // -h, never --http or --help
		{"he", "help", ""},
		{"ht", "http", ""},
		{"bogus", "bogus", ""}, // left for the flag package to refuse
	} {
		got, err := longFlag(flags, tc.typed, "git reason x")
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tc.want || gotErr != tc.err {
			t.Errorf("longFlag(%q) = %q, %q; want %q, %q", tc.typed, got, gotErr, tc.want, tc.err)
		}
	}
}

func TestExpandFlags(t *testing.T) {
	app := &cli.App{
		Flags: []cli.Flag{&cli.BoolFlag{Name: "no-pager"}, &cli.StringFlag{Name: "profile"}},
		Commands: []*cli.Command{{Name: "log", Flags: []cli.Flag{
			&cli.BoolFlag{Name: "oneline"}, &cli.BoolFlag{Name: "json"}, &cli.StringFlag{Name: "grep"},
		}}},
	}
	for _, tc := range []struct{ args, want string }{
		{"x --prof p log --onel T", "x --profile p log --oneline T"},
		{"x log --gr --onel --js", "x log --grep --onel --json"}, // --onel is --grep's value
		{"x log --gr=--onel --no-js --no-p", "x log --grep=--onel --json=false --no-pager"},
		{"x log T -- --onel", "x log T -- --onel"},
		{"x log --end-of-options --onel", "x log -- --onel"},
		{"x log T --no-oneline=true", "x log T --no-oneline=true"}, // left for the flag package to refuse
	} {
		args := strings.Fields(tc.args)
		given := slices.Clone(args)
		got, err := expandFlags(app, args)
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("expandFlags(%s) = %q, %v; want %s", tc.args, got, err, tc.want)
		}
		if !slices.Equal(args, given) {
			t.Errorf("expandFlags(%s) changed its arguments to %q", tc.args, args)
		}
	}
}
