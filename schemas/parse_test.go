package schemas

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"reflect"
	"strings"
	"testing"
)

// stdDecode is what decodeDoc must always give: encoding/json's Decoder
// with UseNumber, first value only.
func stdDecode(data []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	err := dec.Decode(&v)
	return v, err
}

// checkSame fails unless decodeDoc gives exactly encoding/json's value, or
// exactly its error.
func checkSame(t *testing.T, data []byte) {
	t.Helper()
	got, gerr := decodeDoc(data)
	want, werr := stdDecode(data)
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%q: error %v, encoding/json's %v", data, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decodes as\n%#v\nencoding/json's\n%#v", data, got, want)
	}
}

// Every embedded document decodes as encoding/json decodes it, and by the
// fast path (a document it hands to encoding/json gains nothing).
func TestDecodeDocEmbedded(t *testing.T) {
	names, err := fs.Glob(FS, "*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no embedded documents: %v", err)
	}
	for _, name := range names {
		data, err := FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		checkSame(t, data)
		p := docParser{data: data}
		if _, ok := p.value(0); !ok {
			t.Errorf("%s is not read by decodeDoc's own path: compiling it decodes it twice", name)
		}
	}
}

// The forms decodeDoc reads itself and the ones it leaves to encoding/json
// (escapes, invalid UTF-8, bad syntax, deep nesting, trailing data) give
// encoding/json's value or error.
func TestDecodeDocLikeEncodingJSON(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, `{"a":1,"a":2}`, `{"a":{"b":[1,-2.5e+3,0,true,false,null,"x"]}}`,
		` {"a" : [ ] , "b":{ }} `, `{"p":"^\\.lock(/|$)\\s\"\/\b\f\n\r\t"}`,
		`{"u":"\u00e9\ud83d\ude00\ud800"}`, "{\"s\":\"caf\xc3\xa9 \xff\"}", "{\"c\":\"a\x01\"}",
		`{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":1e}`, `{"a":.5}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`,
		`{"a":tru}`, `{"a":truex}`, `{"a":nul}`, `{1:2}`, `{"a":"\x"}`, `{"a":"\`, `{"a":"b`, `{`, `[`, ``, `   `,
		`{} trailing`, `[1] [2]`, `true`, `truex`, `0`, `01`, `-0.0E-7`, `"s"`, `"\u0041"`,
		strings.Repeat("[", 150) + strings.Repeat("]", 150),
		strings.Repeat(`{"a":`, 120) + "1" + strings.Repeat("}", 120),
		"\ufeff{}",
	} {
		checkSame(t, []byte(doc))
	}
}

func FuzzDecodeDoc(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b\\n",{"c":null}]}`, `{"p":"^\\.x$","n":-1.5e3}`, `[true,false]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkSame(t, data) })
}
