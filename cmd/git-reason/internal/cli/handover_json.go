package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// writeHandoverJSON prints a handover exactly as exportJSON would, without
// exportJSON's costs on a large one: a handover of a thousand tasks is
// megabytes, which exportJSON copies whole by reflection (to turn nil
// lists into empty ones), encodes into one buffer and indents into a
// second, both grown by doubling. Here every list is made non-nil field by
// field (handoverLists), and each task is encoded on its own into one
// reused buffer and streamed out. A test holds the two byte-identical.
func writeHandoverJSON(w io.Writer, r *ops.HandoverReport) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// value writes v as it stands at depth (1 for a field of the report,
	// 2 for an item of one of its lists), without the encoder's newline.
	value := func(v any, depth int) error {
		prefix := "  "
		if depth == 2 {
			prefix = "    "
		}
		buf.Reset()
		enc.SetIndent(prefix, "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
		_, err := bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return err
	}
	bw.WriteString("{\n  \"since\": ")
	if err := value(r.Since, 1); err != nil {
		return err
	}
	for _, l := range []struct {
		key   string
		tasks []record.Handover
	}{{"open", r.Open}, {"settled", r.Settled}} {
		bw.WriteString(",\n  \"" + l.key + "\": ")
		if len(l.tasks) == 0 {
			bw.WriteString("[]")
			continue
		}
		bw.WriteString("[\n    ")
		for i := range l.tasks {
			if i > 0 {
				bw.WriteString(",\n    ")
			}
			if err := value(handoverLists(l.tasks[i]), 2); err != nil {
				return err
			}
		}
		bw.WriteString("\n  ]")
	}
	bw.WriteString(",\n  \"circuits\": ")
	circuits := make([]ops.AdvisorRow, len(r.Circuits))
	for i, a := range r.Circuits {
		a.Capabilities = orEmpty(a.Capabilities)
		circuits[i] = a
	}
	if err := value(circuits, 1); err != nil {
		return err
	}
	if r.CircuitsError != "" {
		bw.WriteString(",\n  \"circuits_error\": ")
		if err := value(r.CircuitsError, 1); err != nil {
			return err
		}
	}
	if len(r.Signatures) > 0 {
		bw.WriteString(",\n  \"signatures\": ")
		sigs := make(map[string]*ops.SignatureSummary, len(r.Signatures))
		for task, s := range r.Signatures {
			if s != nil && s.Signers == nil {
				c := *s
				c.Signers = []string{}
				s = &c
			}
			sigs[task] = s
		}
		if err := value(sigs, 1); err != nil {
			return err
		}
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// handoverLists returns h with every nil list of it, and of what it holds,
// an empty one: exportJSON's rule (an empty list prints [], never null),
// kept by hand for the one type written outside it.
func handoverLists(h record.Handover) record.Handover {
	h.Actors = orEmpty(h.Actors)
	h.LocalReview = orEmpty(h.LocalReview)
	h.Missing = orEmpty(h.Missing)
	h.Consultations = orEmpty(h.Consultations)
	h.Standing = orEmpty(h.Standing)
	if h.Disagreements == nil {
		h.Disagreements = []record.HandoverDispute{}
	} else {
		for i := range h.Disagreements {
			if h.Disagreements[i].Cites == nil {
				ds := append([]record.HandoverDispute(nil), h.Disagreements...)
				for j := range ds {
					ds[j].Cites = orEmpty(ds[j].Cites)
				}
				h.Disagreements = ds
				break
			}
		}
	}
	if h.Attempt != nil && h.Attempt.Commits == nil {
		a := *h.Attempt
		a.Commits = []string{}
		h.Attempt = &a
	}
	return h
}

// orEmpty is s, or an empty list when s is nil.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
