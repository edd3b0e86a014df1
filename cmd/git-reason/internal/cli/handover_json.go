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
// field (ops.HandoverReport.Lists, which MCP sends too), and each task is
// encoded on its own into one reused buffer and streamed out. A test
// holds the two byte-identical.
func writeHandoverJSON(w io.Writer, r *ops.HandoverReport) error {
	r = r.Lists()
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
		_, err := bw.Write(inertJSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))))
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
			if err := value(l.tasks[i], 2); err != nil {
				return err
			}
		}
		bw.WriteString("\n  ]")
	}
	bw.WriteString(",\n  \"circuits\": ")
	if err := value(r.Circuits, 1); err != nil {
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
		if err := value(r.Signatures, 1); err != nil {
			return err
		}
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}
