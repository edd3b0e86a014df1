package cli

import (
	"io"
	"os"
	"strings"

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

// colourOn decides colour for output to w as git does for color.ui and
// color.reason (never, always, auto), with NO_COLOR turning auto off;
// never for JSON. Under auto, as git's check_auto_color: on a terminal,
// or into a pager (git reason's own, or git's when git -p started one)
// unless color.pager is false; never on a dumb terminal (TERM unset or
// dumb). Paged output was plain, where git's own is coloured.
func colourOn(st *settings.Settings, w io.Writer, json bool) bool {
	if json {
		return false
	}
	switch st.Color {
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
// filter pass its sequences.
func (b *base) colours() palette {
	if b.JSON {
		return palette{}
	}
	sess, err := b.Open()
	if err != nil {
		return palette{}
	}
	st, err := sess.Settings()
	if err != nil || !colourOn(st, b.Out, false) {
		return palette{}
	}
	if pw, ok := b.Out.(*printableWriter); ok {
		pw.sgr = true
	}
	return palette{on: true}
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
