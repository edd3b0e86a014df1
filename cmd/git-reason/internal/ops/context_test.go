package ops

import (
	"fmt"
	"strings"
	"testing"

	"git-reason/record"
)

// A file evidence links by the path it cites, whatever line or fragment
// follows; other evidence never links by file.
func TestEvidencePath(t *testing.T) {
	for _, c := range []struct {
		ev   record.Evidence
		want string
	}{
		{record.Evidence{Kind: "file", Ref: "src/cache.go"}, "src/cache.go"},
		{record.Evidence{Kind: "file", Ref: "./src/cache.go:12"}, "src/cache.go"},
		{record.Evidence{Kind: "file", Ref: "src/cache.go:12-30"}, "src/cache.go"},
		{record.Evidence{Kind: "file", Ref: "src/cache.go#L12"}, "src/cache.go"},
		{record.Evidence{Kind: "file", Ref: "/src//x/../cache.go"}, "src/cache.go"},
		{record.Evidence{Kind: "file", Ref: "C:notes"}, "C:notes"},
		{record.Evidence{Kind: "file", Ref: ""}, ""},
		{record.Evidence{Kind: "note", Ref: "src/cache.go"}, ""},
		{record.Evidence{Kind: "url", Ref: "http://x.example/src/cache.go"}, ""},
	} {
		if got := evidencePath(c.ev); got != c.want {
			t.Errorf("evidencePath(%+v) = %q, want %q", c.ev, got, c.want)
		}
	}
}

// A label keeps plain text readable and spells everything else as an
// entity code, cut to its length.
func TestMermaidText(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"plan: review required", 60, "plan: review required"},
		{`say "hi" <b>`, 60, "say #34;hi#34; #60;b#62;"},
		{"a [x](http://e.example) @t #1", 60, "a #91;x#93;#40;http:#47;#47;e.example#41; #64;t #35;1"},
		{"one\ntwo\tthree", 60, "one two three"},
		{"abcdefghij", 5, "abcd#8230;"},
		{"x|y;z", 60, "x#124;y;z"},
	} {
		if got := MermaidText(c.in, c.max); got != c.want {
			t.Errorf("MermaidText(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

// A range of short subjects is mostly the blanks git pads each subject
// with to maxRangeSubject columns: 160,000 commits passed the 64 MiB the
// listing was read to ("give a shorter range") where they read before
// the subjects were cut. The cap leaves maxRangeLog besides that layout.
func TestRangeLogCapShortSubjects(t *testing.T) {
	const n = 160000
	for _, hash := range []string{strings.Repeat("a", 40), strings.Repeat("b", 64)} {
		// One commit as the format lays it out: %H, %x00, the subject
		// cut and padded, %x00, no trailers, %x1e, and git's newline.
		rec := hash + "\x00" + fmt.Sprintf("%-*s", maxRangeSubject, "step 159990") + "\x00" + "" + "\x1e\n"
		if got, limit := int64(n*len(rec)), rangeLogCap(n); got+maxRangeLog > limit {
			t.Errorf("%d commits of short subjects (hash of %d): %d bytes of layout, cap %d leaves %d of the %d for subjects and trailers",
				n, len(hash), got, limit, limit-got, maxRangeLog)
		}
	}
}

// The note an item not read past the cap had before NotRead dropped the
// cap's figure is still read as that item's, and nothing else is.
func TestOldNotReadNote(t *testing.T) {
	for note, want := range map[string]bool{
		"not read: the material before it passes reason.maxBytesPerConsult (8388608 bytes)": true,
		"not read: the material before it passes reason.maxBytesPerConsult ( bytes)":        false,
		"not read: the material before it passes reason.maxBytesPerConsult (8m bytes)":      false,
		NotRead: false,
	} {
		if got := oldNotRead(note); got != want {
			t.Errorf("oldNotRead(%q) = %v, want %v", note, got, want)
		}
	}
}
