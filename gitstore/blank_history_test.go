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
	// It takes new records on top: an attempt citing the blank conclusion.
	requireOlderHistoryClean(t, h, h.write(h.on(kc, v)), "with blank texts")
}

// requireOlderHistoryClean requires the history at head, forged as an
// older writer admitted it, to replay with no finding and to take an
// attempt on top, citing its conclusion.
func requireOlderHistoryClean(t *testing.T, h *forgHistory, head, what string) {
	t.Helper()
	if found := h.forge(head); len(found) > 0 {
		t.Fatalf("a stored history %s has findings:\n%s", what, forgList(found))
	}
	res, err := forgWriter(t, h.dir, "origin-test").Append(context.Background(), forgTask, record.KindAttempt,
		[]byte(h.expand(`{"conclusion":"{k}","outcome":"succeeded"}`)))
	if err != nil {
		t.Fatalf("an attempt on a history %s: %v", what, err)
	}
	h.requireClean(res.Commit)
}

// Evidence that points at something (a file, a command, a commit, a url)
// and names nothing, its ref empty or absent, is refused in a new body
// (its kind's input document; the command line's --evidence refused it,
// a --file body did not), while a history an older writer admitted it
// into, the resolution's and the validation's evidence naming nothing,
// still replays clean and takes new records on top.
func TestEvidenceNamingNothingOfAStoredHistoryStillVerifies(t *testing.T) {
	t.Parallel()
	h := newForgHistory(t)

	for _, ev := range []string{`{"kind":"file","ref":"","summary":"the schema"}`, `{"kind":"url","summary":"the report"}`, `{"kind":"commit","ref":"  ","summary":"the fix"}`} {
		_, err := h.w.Append(context.Background(), forgTask, record.KindValidation, []byte(h.expand(
			`{"conclusion":"{k}","method":"manual","result":"pass","evidence":[{"kind":"note","summary":"ran"},`+ev+`]}`)))
		if !errors.Is(err, record.ErrInput) || !strings.Contains(err.Error(), "/evidence/1") || !strings.Contains(err.Error(), "names nothing: give the path, command, commit or url it points at") {
			t.Errorf("a new validation with evidence %s: %v, want bad input saying /evidence/1 names nothing", ev, err)
		}
	}

	r := h.rec("r")
	obj(r["body"])["evidence"] = []any{map[string]any{"kind": "commit", "summary": "the two-step migration"}}
	rc := h.write(h.on(h.commit["d"], r))
	kc := h.write(h.on(rc, h.rec("k")))
	v := h.rec("v")
	obj(v["body"])["evidence"] = []any{map[string]any{"kind": "file", "ref": "", "summary": "ran on staging"}}
	requireOlderHistoryClean(t, h, h.write(h.on(kc, v)), "whose evidence names nothing")
}
