package ops

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"git-reason/gitstore/git"
	"git-reason/gitstore/signing"
	"git-reason/record"
)

// summariesMagic starts .git/reason/signature-summaries; its number
// changes with the file's shape.
const summariesMagic = "git reason signature summaries 1\n"

// fewMoved is how many moved tasks are asked about one at a time, each
// from its own signature cache (RecordSignatures: git is asked only about
// the commits since); more are asked of one git log together.
const fewMoved = 16

// SignatureSummaries returns the signature summary of every task at its
// head now, by task: what the task list filters by (signed, unsigned, not
// verifying) and the status of every task shows. It reads
// .git/reason/signature-summaries, kept by head and by the allowed
// signers: only the tasks whose head moved are asked about, a few from
// their own signature caches, many together in one git log. A task git
// could not be asked about has none.
//
// The file is summariesMagic, a line "A\t<allowed signers digest>", then
// per task "<task>\t<head>\t<status>=<count>,…\t<signer>\t<signer>…" with
// tabs and newlines in signers made spaces.
func (e *Session) SignatureSummaries(ctx context.Context) (map[string]*SignatureSummary, error) {
	tasks, err := e.Store.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	allowed, err := e.allowedDigest()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(e.Repo.CommonDir, "reason", "signature-summaries")
	known := readSummaries(path, allowed)
	out := make(map[string]*SignatureSummary, len(tasks))
	var moved []record.TaskHead
	for _, t := range tasks {
		if k, ok := known[t.Task]; ok && k.head == t.Head {
			out[t.Task] = k.summary
		} else {
			moved = append(moved, t)
		}
	}
	if len(moved) == 0 && len(known) == len(tasks) {
		return out, nil
	}
	if len(moved) <= fewMoved {
		for _, t := range moved {
			if sigs, err := e.RecordSignatures(ctx, t.Task, t.Head); err == nil {
				out[t.Task] = Summarize(sigs)
			}
		}
	} else {
		heads := make([]string, len(moved))
		for i, t := range moved {
			heads[i] = t.Head
		}
		byHead, err := e.signaturesOf(ctx, heads)
		if err != nil {
			return nil, err
		}
		for _, t := range moved {
			out[t.Task] = Summarize(byRecord(byHead[t.Head]))
		}
	}
	writeSummaries(path, allowed, tasks, out)
	return out, nil
}

type knownSummary struct {
	head    string
	summary *SignatureSummary
}

// readSummaries reads the file; one written against other allowed
// signers, or that does not parse, knows nothing.
func readSummaries(path, allowed string) map[string]knownSummary {
	out := map[string]knownSummary{}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte(summariesMagic+"A\t"+allowed+"\n")) {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(data[len(summariesMagic)+len(allowed)+3:]))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 3 {
			return map[string]knownSummary{}
		}
		s := &SignatureSummary{Counts: map[signing.Status]int{}, Signers: f[3:]}
		for _, c := range strings.Split(f[2], ",") {
			if st, n, ok := strings.Cut(c, "="); ok {
				s.Counts[signing.Status(st)], _ = strconv.Atoi(n)
			}
		}
		out[f[0]] = knownSummary{head: f[1], summary: s}
	}
	return out
}

// writeSummaries keeps the summaries of tasks; a file that cannot be
// written is rebuilt next time.
func writeSummaries(path, allowed string, tasks []record.TaskHead, sums map[string]*SignatureSummary) {
	var b bytes.Buffer
	b.WriteString(summariesMagic + "A\t" + allowed + "\n")
	for _, t := range tasks {
		s := sums[t.Task]
		if s == nil {
			continue
		}
		b.WriteString(t.Task + "\t" + t.Head + "\t")
		sts := make([]string, 0, len(s.Counts))
		for st := range s.Counts {
			sts = append(sts, string(st))
		}
		sort.Strings(sts)
		for i, st := range sts {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(st + "=" + strconv.Itoa(s.Counts[signing.Status(st)]))
		}
		for _, who := range s.Signers {
			b.WriteString("\t" + flatField.Replace(who))
		}
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	_ = git.WriteFile(path, b.Bytes(), 0o644, git.Wait, false)
}

// flatField makes a value one field of a tab-separated line.
var flatField = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// AllSigned reports whether every record is signed by an allowed signer.
func (s *SignatureSummary) AllSigned() bool {
	return s != nil && s.total() > 0 && s.Counts[signing.Good] == s.total()
}

// SomeUnsigned reports whether a record carries no signature.
func (s *SignatureSummary) SomeUnsigned() bool { return s != nil && s.Counts[signing.Unsigned] > 0 }

// SomeNotVerifying reports whether a record carries a signature that is
// not an allowed signer's good one (bad, unknown key, removed, …).
func (s *SignatureSummary) SomeNotVerifying() bool {
	return s != nil && s.total()-s.Counts[signing.Good]-s.Counts[signing.Unsigned] > 0
}

// SignersDigest identifies the allowed signers signatures are judged
// against now: a reader that keeps summaries keeps them with it.
func (e *Session) SignersDigest() (string, error) { return e.allowedDigest() }
