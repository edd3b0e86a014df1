package record

import (
	"regexp"
	"testing"
	"unicode/utf8"
)

// TextPrintable's byte-by-byte pass over ASCII says what PrintableText
// does: for every rune up to U+FFFF and the bytes that are no UTF-8,
// alone and between ASCII text, the text is left as it is exactly when
// TextPrintable says so.
func TestTextPrintableIsPrintableText(t *testing.T) {
	check := func(b []byte) {
		if got, want := TextPrintable(b), PrintableText(string(b)) == string(b); got != want {
			t.Errorf("TextPrintable(%q) = %v, want %v", b, got, want)
		}
	}
	for r := rune(0); r <= 0xFFFF; r++ {
		s := string(r)
		if r >= 0xD800 && r <= 0xDFFF {
			s = string([]byte{0xED, byte(0xA0 | r>>6&0x1F), byte(0x80 | r&0x3F)}) // a surrogate, as bytes: no UTF-8
		}
		for _, b := range []string{s, "ab\tc " + s, s + "\nx", "x" + s + "y"} {
			check([]byte(b))
		}
	}
	for c := 0x80; c < 0x100; c++ {
		check([]byte{byte(c)})
		check([]byte{'a', byte(c), 'b'})
	}
	if !utf8.ValidString("é") || !TextPrintable([]byte("plain text, é\n")) {
		t.Error("clean text not taken as printable")
	}
}

// CheckTask's rules, one message each, are the whole of TaskPattern: no
// name over an alphabet of the characters the rules name, up to six
// long, that the rules take fails the pattern, or the other way round.
// So CheckTask does not run the pattern (a regular expression a name was
// a twelfth of listing 20,000 task refs).
func TestCheckTaskRulesArePattern(t *testing.T) {
	pattern := regexp.MustCompile(TaskPattern)
	const alphabet = "aZ9._-/"
	name := make([]byte, 0, 6)
	var walk func()
	walk = func() {
		if len(name) > 0 {
			if rules, re := CheckTask(string(name)) == nil, pattern.Match(name) && len(name) <= MaxTaskLen; rules != re {
				t.Errorf("%q: the rules take it %v, the pattern %v", name, rules, re)
			}
		}
		if len(name) == cap(name) {
			return
		}
		for i := range len(alphabet) {
			name = append(name, alphabet[i])
			walk()
			name = name[:len(name)-1]
		}
	}
	walk()
	// A part ending in ".lock" matches the pattern; the rules refuse it,
	// as the envelope schema does.
	for n, ok := range map[string]bool{"a.lock": false, "a.lock/b": false, "a/b.lock": false, "a.lockx": true, "x.locka/b": true} {
		if (CheckTask(n) == nil) != ok || !pattern.MatchString(n) {
			t.Errorf("%q: the rules take it %v, want %v", n, CheckTask(n) == nil, ok)
		}
	}
}
