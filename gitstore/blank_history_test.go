package gitstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"git-reason/record"
)

// The writer refuses a caller's body whose required texts are blank (only
// spaces, tabs or line breaks): its kind's input document says so, and
// only new bodies are held to it. A history written before that rule,
// whose resolution, conclusion, weighing and evidence say nothing but
// spaces, still replays and verifies clean, as the body schema every
// stored record is held to admits it, and takes new records on top.
func TestBlankTextsOfAStoredHistoryStillVerify(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)

	for _, body := range []string{
		`{"assessment":"{a}","decision":"   ","weighed":[{"consultation":"{c1}","treatment":"adopted","reason":"sound"},{"consultation":"{c2}","treatment":"rejected","reason":"ok"}],"supersedes":["{k}"]}`,
		`{"assessment":"{a}","decision":"online","weighed":[{"consultation":"{c1}","treatment":"adopted","reason":" \t "},{"consultation":"{c2}","treatment":"rejected","reason":"ok"}],"supersedes":["{k}"]}`,
	} {
		_, err := h.w.Append(context.Background(), forgTask, record.KindConclusion, []byte(h.expand(body)))
		var se *record.SchemaError
		if !errors.Is(err, record.ErrInput) || !errors.As(err, &se) || !strings.Contains(err.Error(), "is blank") {
			t.Errorf("a new conclusion with a blank text: %v, want a schema error saying it is blank", err)
		}
	}
	_, err := h.w.Append(context.Background(), forgTask, record.KindValidation, []byte(h.expand(
		`{"conclusion":"{k}","method":"manual","result":"pass","evidence":[{"kind":"note","summary":"  "}]}`)))
	if !errors.Is(err, record.ErrInput) {
		t.Errorf("a new validation with a blank evidence summary: %v, want bad input", err)
	}

	// The same history, with the resolution, the conclusion and the
	// validation rewritten by plumbing as an older writer admitted them.
	r := h.rec("r")
	obj(r["body"])["decision"] = "   "
	obj(obj(r["body"])["evidence"].([]any)[0])["summary"] = " "
	rc := h.write(h.on(h.commit["d"], r))
	k := h.rec("k")
	obj(k["body"])["decision"] = "\t "
	obj(obj(k["body"])["weighed"].([]any)[1])["reason"] = "  "
	kc := h.write(h.on(rc, k))
	v := h.rec("v")
	obj(obj(v["body"])["evidence"].([]any)[0])["summary"] = "   "
	vc := h.write(h.on(kc, v))
	if found := h.forge(vc); len(found) > 0 {
		t.Fatalf("a stored history with blank texts has findings:\n%s", forgList(found))
	}

	// It takes new records on top: an attempt citing the blank conclusion.
	res, err := forgWriter(t, h.dir, "origin-test").Append(context.Background(), forgTask, record.KindAttempt,
		[]byte(h.expand(`{"conclusion":"{k}","outcome":"succeeded"}`)))
	if err != nil {
		t.Fatalf("an attempt on a history with blank texts: %v", err)
	}
	h.requireClean(res.Commit)
}
