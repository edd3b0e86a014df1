package advisor

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// Untrusted says what an untrusted repository overlay declared that was
// ignored: new advisors and profiles, gated and attribution fields of
// declared advisors, and review fields and modes that would lower review.
type Untrusted struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	// Ignored lists, in file order, "new advisor ID", "ID: field, ...",
	// "new profile ID" or "profile ID: mode".
	Ignored []string `json:"ignored"`
}

// noticeLists is how many ignored entries a notice names: a stranger's
// file of 30,000 new advisors made every command that reads it print a
// line of 600 KB.
const noticeLists = 10

// Notice is the one line that says so and what to run. It names the
// first entries ignored and counts the rest, which `git reason trust
// --show` lists.
func (u *Untrusted) Notice() string { return u.notice("review them with 'git reason trust'") }

// ToolNotice is Notice as the MCP tools say it: no tool records trust, so
// reviewing the entries is the person's step.
func (u *Untrusted) ToolNotice() string {
	return u.notice("the person reviews them with 'git reason trust' (no tool reviews or records trust)")
}

func (u *Untrusted) notice(review string) string {
	ignored := strings.Join(u.Ignored[:min(len(u.Ignored), noticeLists)], "; ")
	if more := len(u.Ignored) - noticeLists; more > 0 {
		ignored += fmt.Sprintf("; and %d more, which 'git reason trust --show' lists", more)
	}
	return fmt.Sprintf("%s is not trusted: its entries that run or send something, change what a record attributes or could lower review are ignored (%s); %s",
		u.File, ignored, review)
}

// Sum is the SHA-256 of a file's content, in hex: what trust records.
func Sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Describe says in one line what the advisor runs, or where it sends which
// credential and how.
func (d Declaration) Describe() string {
	if !slices.Contains(AdaptersFor(d.Transport), d.Adapter) {
		// Unquoted, a transport of any text printed what it liked where
		// the argv belongs; such an advisor is never asked.
		return fmt.Sprintf("transport %q with adapter %q, which git reason cannot speak: never asked", d.Transport, d.Adapter)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s", d.Transport, d.Adapter)
	if d.Adapter == AdapterExec {
		fmt.Fprintf(&b, ": runs %s", quoteArgs(d.Command))
		if rel := relativePaths(d.Command); len(rel) > 0 {
			// What runs is then a file trust does not cover: the command
			// starts where git reason runs, usually this work tree.
			fmt.Fprintf(&b, " (%s from the directory git reason runs in: trust covers this file, not what is there)", quoteArgs(rel))
		}
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
	if d.PeerAdvisor != "" {
		fmt.Fprintf(&b, ", for the peer's advisor %q", d.PeerAdvisor)
	}
	if d.ContextBytes > 0 || d.ContextTokens > 0 {
		fmt.Fprintf(&b, ", with up to %d bytes of material", ContextBudget(d))
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
	if d.Adapter == AdapterExec && d.AnswersPeers {
		b.WriteString("; answers peers' questions (git reason serve), run in an empty temporary directory")
	}
	return b.String()
}

// relativePaths lists the command's program when it is a relative path
// with a separator, and its arguments that start "./" or "../": files
// read where the command starts, whose content trust does not cover.
func relativePaths(argv []string) []string {
	var rel []string
	for i, a := range argv {
		if (i == 0 && strings.ContainsRune(a, '/') && !filepath.IsAbs(a)) ||
			strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") {
			rel = append(rel, a)
		}
	}
	return rel
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
