package material

import (
	"bytes"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Redactor replaces secrets in text with a marker before the text can
// leave the process: the values of the declared credential variables,
// private keys, tokens of common forms, and values assigned to names that
// say they hold a secret (a declared credential variable's name, or one
// containing secret, token, password, api_key, access_key, private_key,
// credential).
//
// It is a compact hand-written detector rather than a general scanner
// library: the maintained ones carry a configuration framework, archive
// decoders and a WebAssembly regular-expression engine as dependencies,
// and scanning every byte with a hundred expressions does not fit the
// budget of assembling a question (see bench/material). One pass finds
// candidate positions (a token's first bytes at a word start, an
// assignment operator); expressions only confirm a candidate.
type Redactor struct {
	names  []string // declared credential variable names
	values []string // their values now, longest first
}

// MinSecretValue is the shortest credential value redacted as a literal:
// shorter values would blank out ordinary words.
const MinSecretValue = 8

// NewRedactor returns a redactor for the declared credential variables
// names, whose values getenv reads now (values shorter than
// MinSecretValue are not searched for literally).
func NewRedactor(names []string, getenv func(string) string) *Redactor {
	r := &Redactor{}
	for _, n := range names {
		if n == "" || slices.Contains(r.names, n) {
			continue
		}
		r.names = append(r.names, n)
		if v := getenv(n); len(v) >= MinSecretValue && !slices.Contains(r.values, v) {
			r.values = append(r.values, v)
		}
	}
	sort.Slice(r.values, func(i, j int) bool { return len(r.values[i]) > len(r.values[j]) })
	return r
}

// Marker is what replaces a secret of the given kind.
func Marker(kind string) string { return "[redacted " + kind + "]" }

// span is one secret found: text[start:end] is replaced.
type span struct {
	start, end int
	kind       string
}

// token is a secret form recognised by its first bytes and confirmed by an
// expression anchored there.
type token struct {
	prefix string
	re     *regexp.Regexp
	kind   string
}

// tokens are the common credential forms: cloud access key ids, source
// hosting and package registry tokens, chat workspace tokens, API keys of
// the sk- form, signed web tokens. They are compiled on first use, not at
// start-up: most commands never assemble a question.
var tokens = sync.OnceValue(func() []token {
	return []token{
		{"AKIA", regexp.MustCompile(`^AKIA[0-9A-Z]{16}`), "access key id"},
		{"ASIA", regexp.MustCompile(`^ASIA[0-9A-Z]{16}`), "access key id"},
		{"AIza", regexp.MustCompile(`^AIza[0-9A-Za-z_-]{35}`), "api key"},
		{"ghp_", regexp.MustCompile(`^ghp_[0-9A-Za-z]{30,}`), "token"},
		{"gho_", regexp.MustCompile(`^gho_[0-9A-Za-z]{30,}`), "token"},
		{"ghu_", regexp.MustCompile(`^ghu_[0-9A-Za-z]{30,}`), "token"},
		{"ghs_", regexp.MustCompile(`^ghs_[0-9A-Za-z]{30,}`), "token"},
		{"ghr_", regexp.MustCompile(`^ghr_[0-9A-Za-z]{30,}`), "token"},
		{"github_pat_", regexp.MustCompile(`^github_pat_[0-9A-Za-z_]{22,}`), "token"},
		{"glpat-", regexp.MustCompile(`^glpat-[0-9A-Za-z_-]{20,}`), "token"},
		{"npm_", regexp.MustCompile(`^npm_[0-9A-Za-z]{36}`), "token"},
		{"xox", regexp.MustCompile(`^xox[abposr]-[0-9A-Za-z-]{10,}`), "token"},
		{"sk-", regexp.MustCompile(`^sk-[0-9A-Za-z_-]{20,}`), "api key"},
		{"sk_live_", regexp.MustCompile(`^sk_live_[0-9A-Za-z]{20,}`), "api key"},
		{"rk_live_", regexp.MustCompile(`^rk_live_[0-9A-Za-z]{20,}`), "api key"},
		{"eyJ", regexp.MustCompile(`^eyJ[0-9A-Za-z_-]{8,}\.eyJ[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]{8,}`), "token"},
	}
})

// tokensByFirst indexes the token forms by their first byte, so that the
// scan looks closer only where one may start.
var tokensByFirst = sync.OnceValue(func() (t *[256][]*token) {
	t = new([256][]*token)
	all := tokens()
	for i := range all {
		c := all[i].prefix[0]
		t[c] = append(t[c], &all[i])
	}
	return t
})

// candidate marks the bytes where a secret may start or be assigned.
var candidate = sync.OnceValue(func() (t *[256]bool) {
	t = new([256]bool)
	first := tokensByFirst()
	for c := range 256 {
		t[c] = c == '=' || c == ':' || c == '-' || first[c] != nil
	}
	return t
})

// secretWords mark a name whose assigned value is a secret.
var secretWords = []string{"secret", "token", "passw", "apikey", "api_key", "api-key",
	"accesskey", "access_key", "privatekey", "private_key", "credential"}

// Redact returns text with every secret replaced by its [Marker], and the
// number of secrets replaced.
func (r *Redactor) Redact(text string) (string, int) {
	spans := kept(r.find(text))
	if len(spans) == 0 {
		return text, 0
	}
	var b strings.Builder
	b.Grow(len(text))
	replace(&b, text, spans)
	return b.String(), len(spans)
}

// RedactLines is what [Redact] returns as numbered lines ("  12 | text"),
// the first line numbered first, in one pass: a file's material is written
// once, not copied redacted and then copied again numbered.
func (r *Redactor) RedactLines(text string, first int) (string, int) {
	if text == "" {
		return "", 0
	}
	spans := kept(r.find(text))
	// A replacement keeps the line ends it removed, after its marker: the
	// redacted text has as many, but ends with one when a secret that
	// spans lines reaches the end.
	ends := strings.Count(text, "\n")
	endsLine := strings.HasSuffix(text, "\n")
	if k := len(spans); k > 0 && spans[k-1].end == len(text) {
		endsLine = strings.Contains(text[spans[k-1].start:spans[k-1].end], "\n")
	}
	if endsLine {
		ends--
	}
	w := newNumbered(len(text)+len(spans)*32, first, first+ends)
	replace(w, text, spans)
	return w.String(), len(spans)
}

// kept sorts spans and keeps those replace replaces: one of overlapping
// secrets, the first to start.
func kept(spans []span) []span {
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	out, at := spans[:0], 0
	for _, s := range spans {
		if s.start < at { // inside or overlapping one already kept
			if s.end > at {
				out[len(out)-1].end = s.end
				at = s.end
			}
			continue
		}
		out, at = append(out, s), s.end
	}
	return out
}

// replace writes text to b with each of spans (sorted, apart) replaced by
// its marker.
func replace(b stringWriter, text string, spans []span) {
	at := 0
	for _, s := range spans {
		b.WriteString(text[at:s.start])
		b.WriteString(Marker(s.kind))
		// Keep the line count, so that numbered lines stay true.
		for range strings.Count(text[s.start:s.end], "\n") {
			b.WriteString("\n")
		}
		at = s.end
	}
	b.WriteString(text[at:])
}

// stringWriter is where replace writes: a plain builder, or one that
// numbers lines as they pass.
type stringWriter interface {
	WriteString(string) (int, error)
}

func (r *Redactor) find(text string) []span {
	var spans []span
	for _, v := range r.values {
		for at := 0; ; {
			i := strings.Index(text[at:], v)
			if i < 0 {
				break
			}
			spans = append(spans, span{at + i, at + i + len(v), "credential value"})
			at += i + len(v)
		}
	}
	cand, first := candidate(), tokensByFirst()
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !cand[c] {
			continue
		}
		switch {
		case c == '=' || c == ':':
			if s, ok := r.assignment(text, i); ok {
				spans = append(spans, s)
			}
		case (c == '-' || first[c] != nil) && (i == 0 || !isWord(text[i-1])):
			if s, ok := tokenAt(text, i); ok {
				spans = append(spans, s)
				i = s.end - 1
			}
		}
	}
	return spans
}

// tokenAt recognises a token form or a private key starting at i.
func tokenAt(text string, i int) (span, bool) {
	rest := text[i:]
	if strings.HasPrefix(rest, "-----BEGIN ") {
		head := rest[:min(len(rest), 80)]
		end := strings.Index(head[5:], "-----")
		if end < 0 || !strings.Contains(head[:end+5], "PRIVATE KEY") {
			return span{}, false
		}
		// The armour's end, or the text's when it was cut.
		stop := len(text)
		if e := strings.Index(rest, "-----END "); e >= 0 {
			stop = i + e + len("-----END ")
			if f := strings.Index(text[stop:], "-----"); f >= 0 {
				stop += f + len("-----")
			}
		}
		return span{i, stop, "private key"}, true
	}
	if len(rest) < 2 {
		return span{}, false
	}
	window := rest[:min(len(rest), 512)]
	for _, k := range tokensByFirst()[rest[0]] {
		if k.prefix[1] != rest[1] || !strings.HasPrefix(window, k.prefix) {
			continue
		}
		if m := k.re.FindStringIndex(window); m != nil && (i+m[1] == len(text) || !isWord(text[i+m[1]])) {
			return span{i, i + m[1], k.kind}, true
		}
	}
	return span{}, false
}

// assignment recognises a secret assigned at the operator text[op]: a
// quoted value after a secret-sounding name (NAME = "v", "name": "v"),
// or, at the start of a line, an env or YAML style unquoted value
// (NAME=v, export NAME=v, name: v). A declared credential variable's name
// makes any non-empty value a secret; other names need values of at least
// MinSecretValue bytes.
func (r *Redactor) assignment(text string, op int) (span, bool) {
	if op+1 < len(text) && (text[op+1] == '=' || text[op+1] == '/') || op > 0 && strings.IndexByte(":!<>=", text[op-1]) >= 0 {
		return span{}, false // ==, :=, <=, ://, and the like
	}
	// The name before the operator, past spaces and a closing quote.
	j := op
	for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
		j--
	}
	quotedName := j > 0 && (text[j-1] == '"' || text[j-1] == '\'')
	if quotedName {
		j--
	}
	end := j
	for j > 0 && (isWord(text[j-1]) || text[j-1] == '-' || text[j-1] == '.') {
		j--
	}
	if j == end || end-j > 100 {
		return span{}, false
	}
	name := text[j:end]
	declared := slices.Contains(r.names, name)
	if !declared && !secretName(name) {
		return span{}, false
	}
	if quotedName {
		j--
	}
	// At a line's start: after indentation, a diff's or a list's sign, or
	// a shell's export.
	before := strings.TrimLeft(text[strings.LastIndexByte(text[:j], '\n')+1:j], " \t+-")
	lineStart := before == "" || strings.TrimRight(before, " \t") == "export"
	// The value after the operator.
	v := op + 1
	for v < len(text) && (text[v] == ' ' || text[v] == '\t') {
		v++
	}
	if v < len(text) && (text[v] == '"' || text[v] == '\'') {
		q := text[v]
		stop := strings.IndexByte(text[v+1:min(len(text), v+1+4096)], q)
		if stop < 0 || strings.ContainsAny(text[v+1:v+1+stop], "\n") {
			return span{}, false
		}
		if stop == 0 || !declared && stop < MinSecretValue {
			return span{}, false
		}
		return span{v + 1, v + 1 + stop, "assigned secret"}, true
	}
	if !lineStart {
		return span{}, false
	}
	stop := v
	for stop < len(text) && text[stop] != '\n' && text[stop] != '\r' && text[stop] != ' ' && text[stop] != '\t' && text[stop] != '#' {
		stop++
	}
	if stop == v || !declared && stop-v < MinSecretValue {
		return span{}, false
	}
	return span{v, stop, "assigned secret"}, true
}

// secretName reports whether a name says it holds a secret.
func secretName(name string) bool {
	var buf [100]byte // names are at most 100 bytes (see assignment)
	lower := buf[:len(name)]
	for i := range len(name) {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	for _, w := range secretWords {
		if bytes.Contains(lower, []byte(w)) {
			return true
		}
	}
	return false
}

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
