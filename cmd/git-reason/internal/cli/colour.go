package cli

import (
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/cmd/git-reason/internal/settings"
	"git-reason/record"
)

// The SGR sequences git reason colours with. Each opening sequence has the
// same length, so a coloured table column stays aligned (tabwriter counts
// bytes); printableWriter lets these exact sequences through when colour
// is on and escapes every other control character.
const (
	sgrGreen  = "\x1b[32m"
	sgrYellow = "\x1b[33m"
	sgrRed    = "\x1b[31m"
	sgrCyan   = "\x1b[36m"
	sgrPlain  = "\x1b[39m" // the default colour: pads an uncoloured cell
	sgrReset  = "\x1b[0m"
)

var sgrAll = []string{sgrGreen, sgrYellow, sgrRed, sgrCyan, sgrPlain, sgrReset}

// palette paints words when colour is on, and leaves them alone otherwise.
type palette struct{ on bool }

func (p palette) paint(sgr, s string) string {
	if !p.on {
		return s
	}
	return sgr + s + sgrReset
}

// phase colours a task's phase: green when settled, yellow while work is
// under way, red when disputed.
func (p palette) phase(ph record.Phase) string {
	switch ph {
	case record.PhaseValidated, record.PhaseReused, record.PhaseConcluded:
		return p.paint(sgrGreen, string(ph))
	case record.PhaseDisputed:
		return p.paint(sgrRed, string(ph))
	case record.PhaseAssessed, record.PhasePlanned, record.PhaseConsulting:
		return p.paint(sgrYellow, string(ph))
	}
	return p.paint(sgrPlain, string(ph))
}

// colourOn decides colour for output to w as git does for --color (when
// is what --color or --no-color chose, "" for neither), color.reason and
// color.ui (never, always, auto), with NO_COLOR turning auto off; never
// for JSON. Under auto, as git's check_auto_color: on a terminal, or into
// a pager (git reason's own, or git's when git -p started one) unless
// color.pager is false; never on a dumb terminal (TERM unset or dumb).
// Paged output was plain, where git's own is coloured.
func colourOn(st *settings.Settings, when settings.Color, w io.Writer, json bool) bool {
	if json {
		return false
	}
	if when == "" {
		when = st.Color
	}
	switch when {
	case settings.ColorAlways:
		return true
	case settings.ColorNever:
		return false
	}
	if t, ok := os.LookupEnv("TERM"); !ok || t == "dumb" {
		return false
	}
	w = unfiltered(w)
	if terminal(w) != nil {
		return true
	}
	if st.Pager.Plain {
		return false
	}
	if _, ok := w.(pagerPipe); ok {
		return true
	}
	f, ok := w.(*os.File)
	return ok && f.Fd() == 1 && gitPagerInUse()
}

// colours returns the palette for the verb's stdout and lets the printable
// filter pass its sequences; JSON takes no colour. A setting that does
// not read (color.ui=maybe) is the verb's error, exit 2 naming the key,
// as git dies on it (openSession has already listed the settings).
func (b *base) colours() (palette, error) {
	if b.JSON {
		return palette{}, nil
	}
	sess, err := b.Open()
	if err != nil {
		return palette{}, err
	}
	st, err := sess.Settings()
	if err != nil || !colourOn(st, colourChosen(b.cmdline), b.Out, false) {
		return palette{}, err
	}
	if pw, ok := b.Out.(*printableWriter); ok {
		pw.sgr = true
	}
	return palette{on: true}, nil
}

// cutSGR splits s at the first of git reason's own SGR sequences: what
// comes before, the sequence, and the rest ("" and s when there is none).
func cutSGR(s string) (before, sgr, rest string) {
	best := -1
	for _, q := range sgrAll {
		if i := strings.Index(s, q); i >= 0 && (best < 0 || i < best) {
			best, sgr = i, q
		}
	}
	if best < 0 {
		return s, "", ""
	}
	return s[:best], sgr, s[best+len(sgr):]
}

// colourFlags are --color[=WHEN] and --no-color, as git log, diff and
// status take them; global, as --no-pager is, so they go before or after
// the verb. They win over color.reason, color.ui and NO_COLOR.
func colourFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "color", Usage: "colour output `WHEN`: always, never or auto (--color alone: always), whatever color.ui says",
			Action: func(_ *cli.Context, v string) error {
				switch settings.Color(v) {
				case settings.ColorAlways, settings.ColorNever, settings.ColorAuto:
					return nil
				}
				return ops.Usage("--color %q: give always, never or auto", v)
			}},
		&cli.BoolFlag{Name: "no-color", Usage: "no colour, whatever color.ui says (as --color=never)"},
	}
}

// colourChosen is what --color or --no-color chose on the command line
// of c, "" when neither was given (or c is nil).
func colourChosen(c *cli.Context) settings.Color {
	if c == nil {
		return ""
	}
	if c.Bool("no-color") {
		return settings.ColorNever
	}
	return settings.Color(c.String("color"))
}

// colourAlone is args with --color given alone written --color=always,
// as git reads it: as a flag with a value, it would take the next
// argument (the verb) for its value.
func colourAlone(args []string) []string {
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "--color" || a == "-color" {
			args = slices.Clone(args)
			args[i] = "--color=always"
		}
	}
	return args
}
