package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"git-reason/schemas"
)

// The exporter prints every nil list as [], at any depth, through
// pointers, interfaces, maps and embedded structs, and leaves what encodes
// itself alone.
func TestExportJSONNoNullLists(t *testing.T) {
	type inner struct {
		Items []string `json:"items"`
		Gone  []string `json:"gone,omitempty"`
	}
	type Embedded struct {
		Tags []string `json:"tags"`
	}
	type outer struct {
		Embedded
		Direct  []int               `json:"direct"`
		Ptr     *inner              `json:"ptr"`
		NilPtr  *inner              `json:"nil_ptr"`
		Any     any                 `json:"any"`
		Map     map[string][]string `json:"map"`
		Rows    []inner             `json:"rows"`
		Raw     json.RawMessage     `json:"raw"`
		Bytes   []byte              `json:"bytes"`
		private []string
	}
	v := outer{Ptr: &inner{}, Any: inner{}, Map: map[string][]string{"k": nil}, Rows: []inner{{}},
		Raw: json.RawMessage(`{"x":null}`), private: nil}
	var buf bytes.Buffer
	if err := exportJSON(&buf, v); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	out := buf.String()
	for _, want := range []string{`"tags": []`, `"direct": []`, `"items": []`, `"k": []`, `"nil_ptr": null`, `"x": null`, `"bytes": null`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"gone"`) {
		t.Errorf("an omitempty list is printed:\n%s", out)
	}
	if v.Ptr.Items != nil || v.Direct != nil {
		t.Error("the exporter changed the value it was given")
	}
	buf.Reset()
	if err := exportJSON(&buf, []string(nil)); err != nil || buf.String() != "[]\n" {
		t.Errorf("a nil top-level list prints %q, %v; want []", buf.String(), err)
	}
}

// The exporter prints <, > and & as they are, in what it encodes and in
// what was encoded before it (a stored record's body, which json.Marshal
// escaped): git prints them so, and a script reads them so. An escaped
// backslash before "u003c" is a backslash, and stays escaped.
func TestExportJSONPrintsHTMLCharactersPlain(t *testing.T) {
	v := struct {
		Text string          `json:"text"`
		Body json.RawMessage `json:"body"`
	}{Text: "Ada <ada@example.invalid> & co", Body: json.RawMessage(`{"subject":"a \u003cb\u003e \u0026 c","path":"C:\\u003c\u0000"}`)}
	var buf bytes.Buffer
	if err := exportJSON(&buf, v); err != nil {
		t.Fatal(err)
	}
	want := `{
  "text": "Ada <ada@example.invalid> & co",
  "body": {
    "subject": "a <b> & c",
    "path": "C:\\u003c\u0000"
  }
}
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// The exporter writes what the printable filter escapes as JSON escapes,
// in what it encodes and in what was stored raw (a fetched record's body):
// a C1 CSI, DEL, a bidirectional override, a tag character past U+FFFF (a
// pair of surrogates) and a byte that is no UTF-8; printable text (é, a
// CJK character, U+FFFD itself) stays as it is, and the document reads
// back the same text (the byte that is no UTF-8 as U+FFFD, as a reader
// takes it).
func TestExportJSONInert(t *testing.T) {
	hostile := "a\u009b2J \u007f\u202egol.enil \U000E0041 é 中 \uFFFD"
	v := struct {
		Text string          `json:"text"`
		Body json.RawMessage `json:"body"`
	}{Text: hostile, Body: json.RawMessage("{\"s\":\"x\u0085\u2067y\x9bz\"}")}
	var buf bytes.Buffer
	if err := exportJSON(&buf, v); err != nil {
		t.Fatal(err)
	}
	want := `{
  "text": "a\u009b2J \u007f\u202egol.enil \udb40\udc41 é 中 ` + "\uFFFD" + `",
  "body": {
    "s": "x\u0085\u2067y\ufffdz"
  }
}
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	var back struct {
		Text string         `json:"text"`
		Body map[string]any `json:"body"`
	}
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Text != hostile || back.Body["s"] != "x\u0085\u2067y\uFFFDz" {
		t.Errorf("read back %q and %q", back.Text, back.Body["s"])
	}
	buf.Reset()
	if err := exportJQ(&buf, []byte(`{"s":"\udb40\udc41 \u202e"}`), "."); err != nil {
		t.Fatal(err)
	}
	if want := `{"s":"\udb40\udc41 \u202e"}` + "\n"; buf.String() != want {
		t.Errorf("--jq . prints %q, want %q", buf.String(), want)
	}
}

// A verb's --json output is held to the schema it publishes before a byte
// of it is printed: what the schema refuses is an error naming the
// document and where, with nothing printed, with --jq too; what it admits
// is printed as exportJSON prints it.
func TestJSONOutputHeldToItsSchema(t *testing.T) {
	for _, jq := range []string{"", "."} {
		var out bytes.Buffer
		b := &base{Out: &out, JSON: true, JQ: jq, Output: schemas.Outputs["tasks"]}
		err := b.render([]any{map[string]any{"not a field of a task": true}}, nil)
		if err == nil || !strings.Contains(err.Error(), "output.tasks.json") || !strings.Contains(err.Error(), `"/0"`) {
			t.Errorf("--jq %q: a task the schema refuses: %v, want an error naming output.tasks.json at /0", jq, err)
		}
		if out.Len() > 0 {
			t.Errorf("--jq %q: printed %q with output its schema refuses", jq, out.String())
		}
	}
	var out bytes.Buffer
	b := &base{Out: &out, JSON: true, Output: schemas.Outputs["tasks"]}
	if err := b.render([]any{}, nil); err != nil || out.String() != "[]\n" {
		t.Errorf("no tasks: %q, %v", out.String(), err)
	}
}

// TestOutputWriterClosedPipe: a command whose output's reader went away
// (SIGPIPE ignored, so that the write returns EPIPE: a pipe that is not
// file descriptor 1 here) ends quietly with exit 141, as git's commands
// do, not with exit 1 saying "broken pipe"; every other failed write is
// the command's failure.
func TestOutputWriterClosedPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close()
	out := &outputWriter{w: w}
	if _, err := out.Write([]byte("help\n")); err == nil {
		t.Fatal("a write to a pipe nobody reads succeeded")
	}
	if got := out.failure(); exitCode(got) != 141 || got.Error() != "" {
		t.Errorf("a closed pipe: %v, exit %d; want nothing said, exit 141", got, exitCode(got))
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer full.Close()
	out = &outputWriter{w: full}
	out.Write([]byte("help\n"))
	out.Write([]byte("more\n"))
	if got := out.failure(); exitCode(got) != exitFailure || !strings.Contains(got.Error(), "no space left on device") {
		t.Errorf("a full disk: %v, exit %d; want exit 1 saying no space is left", got, exitCode(got))
	}
}
