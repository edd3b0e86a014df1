package web

import (
	"bytes"
	"context"
	"encoding/json"
	"html/template"
	"sync"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// taskView is what the task page shows of a task at one head, but its
// signatures: derived from the records at that head alone.
type taskView struct {
	head    string
	reused  map[string]string // the reused tasks' heads its reuses were checked at (ops.Session.ShownState)
	status  record.Status
	report  template.HTML
	records []recordView
	graph   graph
	// sigs are its records' signatures as judged by what
	// ops.Session.ReadDigest was signers ("" before they are first read,
	// or when one of them is not to be kept: read again).
	signers string
	sigs    map[string]*ops.Signature
}

// maxViews bounds the task views kept: a few pages a reviewer goes back
// and forth between.
const maxViews = 16

// viewCache keeps the views of the tasks last shown, each with the head it
// was derived at: while a task's ref stays, its page is rendered from its
// view, without reading and deriving its records again.
type viewCache struct {
	mu    sync.Mutex
	views map[string]*taskView
}

// get returns task's view at its head now.
func (c *viewCache) get(ctx context.Context, sess *ops.Session, task string) (*taskView, error) {
	head, err := sess.TaskHead(task)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	v := c.views[task]
	c.mu.Unlock()
	if v != nil && v.head == head && head != "" && !sess.Store.ReusedMoved(v.reused) {
		return v, nil
	}
	st, head, reused, err := sess.ShownState(ctx, task)
	if err != nil {
		return nil, err
	}
	v = &taskView{head: head, reused: reused, status: st.Summarize(), graph: drawGraph(st), records: make([]recordView, 0, len(st.Entries)+len(st.Refused))}
	for _, e := range st.Entries {
		var b bytes.Buffer
		_ = json.Indent(&b, mustJSON(e.Record), "", "  ")
		rv := recordView{Entry: e, Summary: record.Summary(e), JSON: b.String(), Surface: surface(e.Record.Derived)}
		if w := st.Withdrawn(e.ID); w != nil {
			rv.Withdrawn = w.ID
		}
		v.records = append(v.records, rv)
	}
	// What replay refused stays in history: listed, and said to be refused.
	for _, e := range st.Refused {
		var b bytes.Buffer
		_ = json.Indent(&b, mustJSON(e.Record), "", "  ")
		v.records = append(v.records, recordView{Entry: e, Summary: "refused by replay: " + record.Summary(e), JSON: b.String()})
	}
	if v.report, err = renderMarkdown(st.Report()); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.views == nil || len(c.views) >= maxViews {
		c.views = map[string]*taskView{}
	}
	c.views[task] = v
	return v, nil
}

// signatures returns the signatures of v's records, judged by what git
// judges them by now: kept with v while ops.Session.ReadDigest stays and
// they are to be kept (ops.Session.KeepsSignatures), read through
// ops.RecordSignatures (kept by head under .git/reason/) otherwise.
func (c *viewCache) signatures(ctx context.Context, sess *ops.Session, task string, v *taskView) (map[string]*ops.Signature, error) {
	signers, err := sess.ReadDigest(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	sigs, at := v.sigs, v.signers
	c.mu.Unlock()
	if at == signers && sigs != nil {
		return sigs, nil
	}
	if sigs, err = sess.RecordSignatures(ctx, task, v.head); err != nil {
		return nil, err
	}
	if !sess.KeepsSignatures(ctx, sigs) {
		signers = ""
	}
	c.mu.Lock()
	v.sigs, v.signers = sigs, signers
	c.mu.Unlock()
	return sigs, nil
}
