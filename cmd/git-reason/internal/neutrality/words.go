package neutrality

// Byte classes of the tokenizer. Bytes of multi-byte UTF-8 characters count
// as lowercase letters: they join words but never start a case change.
const (
	clOther uint8 = iota
	clLower
	clUpper
	clDigit
	clJoin // may sit between two words of one multi-word name
)

var class = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'a' && c <= 'z', c >= 0x80:
			t[c] = clLower
		case c >= 'A' && c <= 'Z':
			t[c] = clUpper
		case c >= '0' && c <= '9':
			t[c] = clDigit
		case c == ' ', c == '\t', c == '_', c == '-', c == '.':
			t[c] = clJoin
		}
	}
	return t
}()

// isWord reports whether a byte of class k belongs to a word.
func isWord(k uint8) bool { return k == clLower || k == clUpper || k == clDigit }

// lowerASCII folds ASCII upper case; other bytes are unchanged.
func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// wordEnd returns the end of the word that starts at data[i], which must be a
// word byte. A word is a run of digits, a run of lowercase letters, a run of
// capitals, or one capital followed by lowercase letters; in a run of
// capitals followed by a lowercase letter the last capital starts the next
// word (ACMECloud is ACME|Cloud).
func wordEnd(data []byte, i int) int {
	n := len(data)
	j := i + 1
	switch class[data[i]] {
	case clDigit:
		for j < n && class[data[j]] == clDigit {
			j++
		}
	case clLower:
		for j < n && class[data[j]] == clLower {
			j++
		}
	case clUpper:
		for j < n && class[data[j]] == clUpper {
			j++
		}
		if j < n && class[data[j]] == clLower {
			if j-i == 1 {
				for j < n && class[data[j]] == clLower {
					j++
				}
			} else {
				j--
			}
		}
	}
	return j
}

// key returns a name's words, lowercased and joined: the form a term is
// matched by. It is empty when the name has no letter or digit.
func key(name string) string {
	data := []byte(name)
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); {
		if !isWord(class[data[i]]) {
			i++
			continue
		}
		e := wordEnd(data, i)
		for _, c := range data[i:e] {
			out = append(out, lowerASCII(c))
		}
		i = e
	}
	return string(out)
}
