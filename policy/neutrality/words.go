package neutrality

import (
	"unicode"
	"unicode/utf8"
)

// Character classes of the tokenizer.
const (
	clOther uint8 = iota
	clLower       // a-z, and any non-ASCII letter, mark or digit
	clUpper       // A-Z
	clDigit       // 0-9
	clJoin        // may sit between two words of one multi-word name
	clHigh        // a byte of a non-ASCII character: see classAt
)

var class = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'a' && c <= 'z':
			t[c] = clLower
		case c >= 'A' && c <= 'Z':
			t[c] = clUpper
		case c >= '0' && c <= '9':
			t[c] = clDigit
		case c == ' ', c == '\t', c == '_', c == '-', c == '.':
			t[c] = clJoin
		case c >= utf8.RuneSelf:
			t[c] = clHigh
		}
	}
	return t
}()

// classAt returns the class of the character at data[i] and its length. A
// non-ASCII letter, mark or digit belongs to words like a lowercase letter
// (it never starts a case change, and its case is not folded); other
// non-ASCII characters, such as dashes, quotes and a byte order mark,
// separate words, as does invalid UTF-8.
func classAt(data []byte, i int) (uint8, int) {
	if c := data[i]; c < utf8.RuneSelf {
		return class[c], 1
	}
	return classNonASCII(data, i)
}

// classNonASCII is classAt's slow path, kept apart so that classAt inlines.
func classNonASCII(data []byte, i int) (uint8, int) {
	r, n := utf8.DecodeRune(data[i:])
	if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r)) {
		return clLower, n
	}
	return clOther, n
}

// isWord reports whether a character of class k belongs to a word.
func isWord(k uint8) bool { return k == clLower || k == clUpper || k == clDigit }

// lowerASCII folds ASCII upper case; other bytes are unchanged.
func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// wordEnd returns the end of the word that starts at data[i], a character
// of class first and length size. A word is a run of digits, a run of
// lowercase letters, a run of capitals, or one capital followed by
// lowercase letters; in a run of capitals followed by a lowercase letter
// the last capital starts the next word (ACMECloud is ACME|Cloud).
func wordEnd(data []byte, i int, first uint8, size int) int {
	n := len(data)
	j := i + size
	switch first {
	case clDigit:
		for j < n && class[data[j]] == clDigit {
			j++
		}
	case clLower:
		j = lowerRun(data, j)
	case clUpper:
		for j < n && class[data[j]] == clUpper {
			j++
		}
		if j < n && isLowerAt(data, j) {
			if j-i == 1 {
				j = lowerRun(data, j)
			} else {
				j--
			}
		}
	}
	return j
}

// lowerRun returns the end of the run of lowercase characters at data[j:].
func lowerRun(data []byte, j int) int {
	for j < len(data) {
		if class[data[j]] == clLower {
			j++
			continue
		}
		k, size := classAt(data, j)
		if k != clLower {
			break
		}
		j += size
	}
	return j
}

func isLowerAt(data []byte, j int) bool {
	k, _ := classAt(data, j)
	return k == clLower
}

// key returns a name's words, lowercased and joined: the form a term is
// matched by. It is empty when the name has no letter or digit.
func key(name string) string {
	data := []byte(name)
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); {
		k, size := classAt(data, i)
		if !isWord(k) {
			i += size
			continue
		}
		e := wordEnd(data, i, k, size)
		for _, c := range data[i:e] {
			out = append(out, lowerASCII(c))
		}
		i = e
	}
	return string(out)
}
