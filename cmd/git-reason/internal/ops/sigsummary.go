package ops

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"git-reason/gitstore"
	"git-reason/gitstore/signing"
	"git-reason/record"
)

// summariesFile is the journal of signature summaries under
// .git/reason/; summariesOld, the file of earlier releases (rewritten
// whole when a head moved), is removed when the journal is first written.
const (
	summariesFile = "signature-summaries.journal"
	summariesOld  = "signature-summaries"
)

// fewMoved is how many moved tasks are asked about one at a time, each
// from its own signature cache (RecordSignatures: git is asked only about
// the commits since); more are asked of one git log together.
const fewMoved = 16

// SignatureSummaries returns the signature summary of every task at its
// head now, by task: what the task list filters by (signed, unsigned, not
// verifying) and the status of every task shows. It reads
// .git/reason/signature-summaries.journal, a journal (gitstore.Journal)
// kept for what git judges signatures by (readDigest), of the
// summaries it decides (SignatureSummary.Kept): only the tasks whose head moved are asked
// about, a few from their own signature caches, many together in one git
// log, and their entries are appended. A task git could not be asked
// about has none.
//
// An entry's data is "<status>=<count>,…" then "\t<signer>" per signer,
// with tabs and newlines in signers made spaces.
func (e *Session) SignatureSummaries(ctx context.Context) (map[string]*SignatureSummary, error) {
	tasks, err := e.Store.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	digest, err := e.readDigest(ctx)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(e.Repo.CommonDir, "reason")
	j := gitstore.ReadJournal(filepath.Join(dir, summariesFile), "signatures "+digest)
	out := make(map[string]*SignatureSummary, len(tasks))
	var moved []record.TaskHead
	for _, t := range tasks {
		if head, data, ok := j.Entry(t.Task); ok && head == t.Head {
			out[t.Task] = parseSummary(data)
			e.noticeSummary(t.Task, out[t.Task])
		} else {
			moved = append(moved, t)
		}
	}
	if len(moved) == 0 && j.Len() == len(tasks) {
		return out, nil
	}
	if len(moved) <= fewMoved {
		for _, t := range moved {
			if sigs, err := e.RecordSignatures(ctx, t.Task, t.Head); err == nil {
				out[t.Task] = e.summarize(ctx, sigs)
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
			out[t.Task] = e.summarize(ctx, byRecord(byHead[t.Head]))
		}
	}
	order := make([]string, len(tasks))
	at := make(map[string]string, len(tasks))
	for i, t := range tasks {
		order[i], at[t.Task] = t.Task, t.Head
	}
	changed := make([]string, 0, len(moved))
	for _, t := range moved {
		changed = append(changed, t.Task)
	}
	fresh := j.Len() == 0
	j.Save(order, func(task string) (string, bool) {
		return at[task], out[task].Kept()
	}, func(task string) ([]byte, bool) {
		return formatSummary(out[task]), true
	}, changed)
	if fresh {
		_ = os.Remove(filepath.Join(dir, summariesOld))
	}
	return out, nil
}

// parseSummary reads an entry's data.
func parseSummary(data []byte) *SignatureSummary {
	f := strings.Split(string(data), "\t")
	s := &SignatureSummary{Counts: map[signing.Status]int{}, Signers: f[1:]}
	for _, c := range strings.Split(f[0], ",") {
		if st, n, ok := strings.Cut(c, "="); ok {
			s.Counts[signing.Status(st)], _ = strconv.Atoi(n)
		}
	}
	return s
}

// formatSummary is an entry's data.
func formatSummary(s *SignatureSummary) []byte {
	var b bytes.Buffer
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
	return b.Bytes()
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
