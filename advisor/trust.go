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
	// Files are the work-tree files its exec advisors' commands name, as
	// read now; Changed says, when the caller knows, how they differ from
	// what was trusted (the notice says it).
	Files   []CoveredFile
	Changed []string
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
	ignored, why := noticeList(u.Ignored), ""
	if len(u.Changed) > 0 {
		why = " (" + noticeList(u.Changed) + ")"
	}
	return fmt.Sprintf("%s is not trusted%s: its entries that run or send something, change what a record attributes or could lower review are ignored (%s); %s",
		u.File, why, ignored, review)
}

// noticeList is the first noticeLists entries of list, and how many more.
func noticeList(list []string) string {
	s := strings.Join(list[:min(len(list), noticeLists)], "; ")
	if more := len(list) - noticeLists; more > 0 {
		s += fmt.Sprintf("; and %d more, which 'git reason trust --show' lists", more)
	}
	return s
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
		names, opaque := commandNames(d.Command)
		if d.RunsInEmptyDir() {
			// Nothing it names is read from the work tree: it starts
			// where there is nothing.
			b.WriteString(" in an empty temporary directory")
		} else if d.Dir != "" {
			// Declared by the repository: what its command names there
			// is covered by trust, file by file or directory by
			// directory (CoveredFile); the top itself, and what it names
			// above, are not.
			b.WriteString(" in the work tree's top")
			if slices.ContainsFunc(slices.Concat(names[min(1, len(names)):]...), func(a string) bool {
				return a != "" && (filepath.Clean(a) == "." || filepath.Clean(a) == filepath.Clean(d.Dir))
			}) {
				b.WriteString(" (runs with the whole work tree as an argument: trust does not cover it)")
			}
			if out := pathsWhere(d.Command, names, func(i int, a string) bool { return above(a) }); len(out) > 0 {
				fmt.Fprintf(&b, " (%s outside the work tree: trust does not cover what is there)", quoteArgs(out))
			}
			for _, note := range opaque {
				// What the script or code names as words is covered;
				// what it builds, imports, or reaches after cd, is not.
				b.WriteString(" (" + note + ")")
			}
		} else if rel := pathsWhere(d.Command, names, relative); len(rel) > 0 {
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

// MaxCommandFileBytes bounds a work-tree file a trusted command names:
// past it the file is not hashed, and the overlay is not trusted.
const MaxCommandFileBytes = 32 << 20

// CoveredFile is a file of the work tree that an exec advisor of the
// repository overlay runs or reads, by its command: trust covers its
// content as it covers the overlay's, since a pull can change it.
type CoveredFile struct {
	Path    string `json:"path"`    // relative to the work tree's top, with slashes; a directory's ends in "/"
	Advisor string `json:"advisor"` // the first advisor whose command names it
	SHA256  string `json:"sha256,omitempty"`
	// Problem says why it cannot be trusted (a symbolic link, not a
	// regular file, too large); SHA256 is then empty.
	Problem string `json:"problem,omitempty"`
	// Via says, for a file no word of the command names, what makes it
	// run: a task runner's file that names it, or the script whose
	// modules it holds (indirect.go). Note says what of what this file
	// runs in turn trust does not cover. Neither counts in the digest
	// (coverFiles): they are words, not content.
	Via  string `json:"via,omitempty"`
	Note string `json:"note,omitempty"`
}

// coverFiles is what trust records for an overlay of SHA-256 sum whose
// commands name files: the overlay's sum alone when they name none (what
// trust always recorded), else one hash over it and every file's path and
// digest or problem, so that a change to any of them untrusts the
// overlay.
func coverFiles(sum string, files []CoveredFile) string {
	if len(files) == 0 {
		return sum
	}
	var b strings.Builder
	b.WriteString(sum + "\n")
	for _, f := range files {
		fmt.Fprintf(&b, "file %q %s %q\n", f.Path, f.SHA256, f.Problem)
	}
	return Sum([]byte(b.String()))
}

// relative reports whether a, what element i of a command names
// (commandNames), is a file read where the command starts: the program
// when it is a relative path with a separator, an argument that starts
// "./" or "../".
func relative(i int, a string) bool {
	return (i == 0 && strings.ContainsRune(a, '/') && !filepath.IsAbs(a)) || strings.HasPrefix(a, "./") || above(a)
}

// pathsWhere lists the elements of argv of which something they name
// (names, from commandNames) is as is says of it.
func pathsWhere(argv []string, names [][]string, is func(i int, a string) bool) []string {
	var out []string
	for i, a := range argv {
		if slices.ContainsFunc(names[i], func(a string) bool { return is(i, a) }) {
			out = append(out, a)
		}
	}
	return out
}

// above reports whether path a starts "../".
func above(a string) bool { return strings.HasPrefix(a, "../") }

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
