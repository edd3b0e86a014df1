package record

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// conflictOnce is a store whose first append finds the head moved, so
// that the writer re-derives and re-admits.
type conflictOnce struct {
	*MemStore
	conflicted bool
}

func (c *conflictOnce) Append(ctx context.Context, task, head string, rec *Record) (string, error) {
	if !c.conflicted {
		c.conflicted = true
		return "", ErrConflict
	}
	return c.MemStore.Append(ctx, task, head, rec)
}

// A write parses its body's JSON once: not again to admit it, to fill the
// typed body, to check the envelope, or on a retry after a conflict.
func TestWriteDecodesBodyOnce(t *testing.T) {
	ctx := context.Background()
	store := &conflictOnce{MemStore: NewMemStore()}
	w := &Writer{Store: store, Actor: "Ada Tester <ada@example.invalid>", Origin: "origin-1"}
	body := `{"subject":"queue","question":"keep it?","materiality":"material","reversibility":"costly","needs":["reasoning"],` +
		`"evidence":[{"kind":"note","summary":"peak load 2k/s"}]}`
	before := bodyDecodes.Load()
	a, err := w.Append(ctx, "T-once", KindAssessment, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if !store.conflicted {
		t.Fatal("the store never reported a conflict: the retry was not exercised")
	}
	if n := bodyDecodes.Load() - before; n != 1 {
		t.Errorf("an assessment written after one conflict parsed its body %d times, want 1", n)
	}
	before = bodyDecodes.Load()
	if _, err := w.Append(ctx, "T-once", KindPlan, []byte(fmt.Sprintf(`{"assessment":%q}`, a.ID[:8]))); err != nil {
		t.Fatal(err)
	}
	if n := bodyDecodes.Load() - before; n != 1 {
		t.Errorf("a plan naming its assessment by prefix parsed its body %d times, want 1", n)
	}
}

// assign fills every kind's body as encoding/json fills it from the same
// text: nulls, empty and missing lists, nested objects and numbers.
func TestAssignMatchesEncodingJSON(t *testing.T) {
	bodies := map[Kind][]string{
		KindAssessment: {
			`{"subject":"s","question":"q","materiality":"minor","reversibility":"reversible"}`,
			`{"subject":"s","question":"q","materiality":"minor","reversibility":"reversible","needs":[],"evidence":null,"new_evidence":true}`,
			`{"subject":"s","question":"q","materiality":"m","reversibility":"r","evidence":[{"kind":"url","ref":"https://x:8080/a","summary":"z"}]}`,
		},
		KindConsultation: {
			`{"plan":"p","advisor":"a","status":"completed","transport":"cli","duration_ms":1234,` +
				`"conclusion":{"stance":"endorse","summary":"ok","recommendations":["r1"],"risks":[],"confidence":0.75}}`,
			`{"plan":"p","advisor":"a","status":"failed","transport":"api","duration_ms":0,"failure":{"kind":"rate_limit","retry_after_s":30}}`,
		},
		KindConclusion: {
			`{"assessment":"a","decision":"d","weighed":[{"consultation":"c","treatment":"adopted","reason":"r"}],"local_review":[{"item":"i","answer":"x"}]}`,
		},
		KindDisagreement: {`{"assessment":"a","cites":["x","y"],"summary":"s"}`},
		KindValidation:   {`{"conclusion":"c","method":"manual","result":"pass","evidence":[]}`},
		KindAttempt:      {`{"conclusion":"c","commits":["abc"],"outcome":"failed","notes":null}`},
	}
	for kind, list := range bodies {
		for _, raw := range list {
			m, err := decodeBody(kind, []byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			got, want := newBody(kind), newBody(kind)
			if err := assign(got, m); err != nil {
				t.Errorf("%s %s: assign: %v", kind, raw, err)
				continue
			}
			dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s:\nassign       %+v\nencoding/json %+v", kind, raw, got, want)
			}
		}
	}
	for _, raw := range []string{`{"subject":1}`, `{"needs":"x"}`, `{"unknown":true}`, `{"new_evidence":"yes"}`} {
		m, _ := decodeBody(KindAssessment, []byte(raw))
		if err := assign(newBody(KindAssessment), m); err == nil {
			t.Errorf("assign accepted %s", raw)
		}
	}
}

// A Checked holds what reading a blob gave for the replays told to
// hold it, and for at most MaxHeldProbes blobs: the blobs of a run that
// are no record would otherwise be held whatever their number.
func TestCheckedHoldsProbesBounded(t *testing.T) {
	files := map[string]string{}
	for i := range MaxHeldProbes + 100 {
		files[fmt.Sprintf("%010d-assessment-x.json", i)] = fmt.Sprintf("%040x", i)
	}
	c := []*Commit{{Hash: "c1", Files: files}}
	unreadable := func(string) (*Record, error) { return nil, fmt.Errorf("not a record") }
	var k Checked
	k.ReplayBlind(context.Background(), "T", c, unreadable, false)
	if n := k.HeldProbes(); n != 0 {
		t.Errorf("a replay not told to hold its blobs left %d held, want none", n)
	}
	k.ReplayBlind(context.Background(), "T", c, unreadable, true)
	if n := k.HeldProbes(); n != MaxHeldProbes {
		t.Errorf("held %d blobs, want %d (MaxHeldProbes)", n, MaxHeldProbes)
	}
}
