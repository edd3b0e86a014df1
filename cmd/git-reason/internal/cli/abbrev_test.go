package cli

import (
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
