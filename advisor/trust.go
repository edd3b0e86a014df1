package advisor

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"git-reason/schemas"
)

// GatedFields are the advisor fields that make the tool run something or
// send something somewhere: from a repository overlay they take effect only
// once the user has trusted that exact file content. local is among them
// because offline mode relies on it to keep everything on this machine.
// Every other field (capabilities, cooldown, timeout, references into
// providers and vendors) and every other section (order, the capability
// vocabulary, providers, vendors, profiles) applies without trust.
var GatedFields = []string{"transport", "adapter", "base_url", "credential", "executable",
	"command", "headers", "auth_header", "auth_scheme", "local"}

// Untrusted says what an untrusted repository overlay declared that was
// ignored: new advisors, and gated fields of declared ones.
type Untrusted struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	// Ignored lists, in file order, "new advisor ID" or "ID: field, ...".
	Ignored []string `json:"ignored"`
}

// Notice is the one line that says so and what to run.
func (u *Untrusted) Notice() string {
	return fmt.Sprintf("%s is not trusted: its entries that run or send something are ignored (%s); review them with 'git reason trust'",
		u.File, strings.Join(u.Ignored, "; "))
}

// Sum is the SHA-256 of a file's content, in hex: what trust records.
func Sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// withoutGated keeps from an untrusted document only what applies without
// trust, and says what it dropped. An advisor entry whose id is not yet
// declared is dropped whole; an entry for a declared advisor loses its
// gated keys, so that the merge leaves those fields as declared.
func (l *loader) withoutGated(doc *document) []string {
	var ignored []string
	kept := doc.advisors[:0]
	for _, e := range doc.advisors {
		id := e.val.ID
		if indexOf(l.cat.Advisors, id) < 0 {
			ignored = append(ignored, "new advisor "+id)
			continue
		}
		var dropped []string
		keys := e.keys[:0:0]
		for _, k := range e.keys {
			if slices.Contains(GatedFields, k) {
				dropped = append(dropped, k)
				continue
			}
			keys = append(keys, k)
		}
		if len(dropped) > 0 {
			ignored = append(ignored, id+": "+strings.Join(dropped, ", "))
		}
		e.keys = keys
		kept = append(kept, e)
	}
	doc.advisors = kept
	return ignored
}

// Effect is what a trusted repository overlay makes one advisor do that
// the untrusted one would not: the advisor's whole effective declaration,
// for a person to read before trusting.
type Effect struct {
	Advisor string   `json:"advisor"`
	New     bool     `json:"new"`               // declared by the overlay
	Changed []string `json:"changed,omitempty"` // gated fields it changes
	Declaration
}

// OverlayEffects loads the declarations twice, with the repository overlay
// trusted and untrusted, and returns what trusting it changes, with the
// content's SHA-256 that trust would record. No overlay is an error
// wrapping fs.ErrNotExist.
func OverlayEffects(src Sources) ([]Effect, string, error) {
	data, err := ReadRegular(src.Repository, MaxDeclarationBytes, false)
	if err != nil {
		return nil, "", err
	}
	sum := Sum(data)
	src.RepositoryTrusted = func(s string) bool { return s == sum }
	full, _, err := Load(src)
	if err != nil {
		return nil, "", err
	}
	src.RepositoryTrusted = nil
	safe, _, err := Load(src)
	if err != nil {
		return nil, "", err
	}
	if s := full.Repository; s != sum {
		// The file changed between the two reads: show nothing rather
		// than something that is not what would be trusted.
		return nil, "", fmt.Errorf("%s changed while it was read: run the command again", src.Repository)
	}
	var out []Effect
	for _, d := range full.Advisors {
		u, ok := safe.Advisor(d.ID)
		if !ok {
			out = append(out, Effect{Advisor: d.ID, New: true, Declaration: d})
			continue
		}
		var changed []string
		dv, uv := reflect.ValueOf(d), reflect.ValueOf(u)
		for _, f := range GatedFields {
			i := schemas.Fields(dv.Type())[f]
			if !reflect.DeepEqual(dv.Field(i).Interface(), uv.Field(i).Interface()) {
				changed = append(changed, f)
			}
		}
		if len(changed) > 0 {
			out = append(out, Effect{Advisor: d.ID, Changed: changed, Declaration: d})
		}
	}
	return out, sum, nil
}

// Describe says in one line what the advisor runs, or where it sends which
// credential and how.
func (d Declaration) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s", d.Transport, d.Adapter)
	if d.Adapter == AdapterExec {
		fmt.Fprintf(&b, ": runs %s", quoteArgs(d.Command))
		if d.Executable != "" {
			fmt.Fprintf(&b, " (installed when %q is on PATH)", d.Executable)
		}
		b.WriteString(", the question on its stdin")
		if d.Credential != "" {
			fmt.Fprintf(&b, ", with $%s in its environment", d.Credential)
		}
	} else {
		fmt.Fprintf(&b, ": sends the question to %q", d.BaseURL)
		if d.Credential != "" {
			header, scheme := "Authorization", "Bearer"
			if d.AuthHeader != "" {
				header = d.AuthHeader
			}
			if d.AuthScheme != nil {
				scheme = *d.AuthScheme
			}
			value := header + ": "
			if scheme != "" {
				value += scheme + " "
			}
			fmt.Fprintf(&b, " with the value of $%s in header %q", d.Credential, value+"<value>")
		} else {
			b.WriteString(" with no credential")
		}
	}
	if len(d.Headers) > 0 {
		names := make([]string, 0, len(d.Headers))
		for k := range d.Headers {
			names = append(names, k)
		}
		slices.Sort(names)
		b.WriteString(", and headers")
		for _, k := range names {
			fmt.Fprintf(&b, " %q", k+": "+d.Headers[k])
		}
	}
	if d.Local {
		b.WriteString("; counts as local (offline mode may use it)")
	}
	return b.String()
}

func quoteArgs(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = fmt.Sprintf("%q", a)
	}
	return "[" + strings.Join(q, " ") + "]"
}

// CodePlaintextURL is the finding for an http:// base URL to a host
// beyond loopback: the question, and the credential when one is declared,
// would cross the network unencrypted.
const CodePlaintextURL = "plaintext_base_url"

// CheckPlaintext flags every advisor whose base URL is http:// to a host
// that is not a loopback name or address.
func CheckPlaintext(cat *Catalog) []Finding {
	var out []Finding
	for _, d := range cat.Advisors {
		u, err := url.Parse(d.BaseURL)
		if err != nil || !strings.EqualFold(u.Scheme, "http") || loopback(d.BaseURL) {
			continue
		}
		what := "the question"
		if d.Credential != "" {
			what += " and the value of $" + d.Credential
		}
		where := ""
		if len(d.Sources) > 0 {
			where = d.Sources[len(d.Sources)-1]
		}
		out = append(out, finding(SeverityWarning, CodePlaintextURL, "advisor "+d.ID, where,
			fmt.Sprintf("base_url is http:// to %s, not a loopback host: %s would cross the network unencrypted; use https://", u.Host, what)))
	}
	return out
}
