package record

import (
	"errors"
	"strings"
	"testing"
)

// TestPrepareEveryKind: what Prepare compiles ahead of a write is, for
// every kind, the three documents the writer validates that kind's
// record against (its body, the envelope, its derived fields), each of
// which compiles; a name Prepare got wrong fails here rather than
// silently compiling nothing ahead.
func TestPrepareEveryKind(t *testing.T) {
	for _, k := range Kinds {
		if err := prepare(k); err != nil {
			t.Errorf("prepare %s: %v", k, err)
		}
	}
}

// TestHugeNumbersNeverReachTheLibrary: a stored record's number past 64
// characters or an exponent of 1000 is a violation of its own, found
// before the schema library reads any number as a big.Rat (2e999999 took
// it 30 ms, so a fetched record of 80,000 such numbers took 40 minutes of
// every command that read its task). A record's usual numbers still read.
func TestHugeNumbersNeverReachTheLibrary(t *testing.T) {
	const id = "01HZZZZZZZZZZZZZZZZZZZ0001"
	stored := func(needs string) []byte {
		return []byte(`{"id":"` + id + `","kind":"assessment","task":"T","created":"2026-01-01T00:00:00.000Z","actor":"Eve <eve@example.invalid>","origin":"o","clock":1,` +
			`"body":{"subject":"S","question":"q","materiality":"critical","reversibility":"costly","needs":[` + needs + `]},"derived":{"subject_key":"s"}}`)
	}
	name := "0000000001-assessment-" + id + ".json"
	if _, err := ReadStored("T", name, stored(`"reasoning"`)); err != nil {
		t.Fatalf("a record that reads: %v", err)
	}
	for _, c := range []struct{ needs, at string }{
		{`2e999999,3e999999,4e999999`, "/body/needs/0"},
		{`"reasoning",1E-1001`, "/body/needs/1"},
		{`"reasoning",1` + strings.Repeat("0", 64), "/body/needs/1"},
		{`1e+99999999999999999999`, "/body/needs/0"},
		{`"reasoning",1.5e1000`, ""}, // within the bounds: the library's own violation
	} {
		_, err := ReadStored("T", name, stored(c.needs))
		var se *SchemaError
		if c.at == "" {
			if !errors.As(err, &se) || strings.Contains(err.Error(), hugeNumberMessage) {
				t.Errorf("needs [%s]: got %v, want the schema's own violation", c.needs, err)
			}
			continue
		}
		if !errors.As(err, &se) || len(se.Violations) != 1 || se.Violations[0].Pointer != c.at || se.Violations[0].Message != hugeNumberMessage {
			t.Errorf("needs [%s]: got %v, want the one violation %q at %s", c.needs, err, hugeNumberMessage, c.at)
		}
	}
}
