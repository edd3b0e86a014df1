package web

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sync"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

//go:embed assets/*.html assets/*.css assets/*.js
var assets embed.FS

// pages are parsed on the first page served: every other command of the
// binary would pay for them at start-up.
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"p": record.Printable,
		// notVerified says a task's history does not verify, and why.
		"notVerified": func(f *record.Finding) string { return record.NotVerified(f).String() },
		"text":        record.PrintableText,
		// commit is a commit's hash as git abbreviates it in a list.
		"commit": func(h string) string { return record.Printable(record.ShortCommit(h)) },
		// id is a record id in the one form the command line prints.
		"id": shortID,
		// rec is where a link to a record of the task page leads: its
		// place on the timeline shown, else the timeline's page that
		// holds it (timelineWindow).
		"rec": recordHref,
		// plural counts as the command line does: 1 task, 2 tasks.
		"plural": record.Plural,
	}).ParseFS(assets, "assets/*.html"))
})

// phases are the phases the task list filters by, in a task's order.
var phases = []record.Phase{record.PhaseEmpty, record.PhaseAssessed, record.PhaseReused, record.PhasePlanned,
	record.PhaseConsulting, record.PhaseDisputed, record.PhaseConcluded, record.PhaseValidated}

// maxConcurrent bounds the requests served at once: each one reads the
// repository, and a page left reloading must not starve the machine.
const maxConcurrent = 4

// handler is the whole Reasoning page: every route behind the guard, which
// accepts k's token and codes. open is called once per request, so every
// page reads the refs as they are now, after integrating what a plain git
// fetch brought meanwhile (ops.Session.CatchUpLive: the page's poll of
// /head notices it too).
func handler(open func() (*ops.Session, error), k *keys) http.Handler {
	live := func() (*ops.Session, error) {
		sess, err := open()
		if err == nil {
			sess.CatchUpLive(context.Background(), nil)
		}
		return sess, err
	}
	s := &server{open: live, slots: make(chan struct{}, maxConcurrent)}
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(filesOnly{static})))
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /{$}", s.one(s.tasks))
	mux.HandleFunc("GET /task/{task...}", s.one(s.task)) // a task name may hold slashes
	mux.HandleFunc("GET /handover", s.one(s.handover))
	mux.HandleFunc("GET /context", s.one(s.context))
	mux.HandleFunc("GET /head", s.one(s.head))
	mux.HandleFunc("GET /advisors", s.one(s.derived("advisors.html", advisors)))
	mux.HandleFunc("GET /doctor", s.one(s.derived("doctor.html", doctor)))
	return protect(k, s.bounded(mux))
}

// filesOnly is the asset tree as /static/ serves it: the stylesheet and
// scripts the pages name. Its directories do not exist (the file server
// lists a directory it can open), nor do the pages' templates, which are
// the server's source, not the page's assets, nor a name no file system
// holds (not UTF-8, such as /static/%E9.js): the tree's error for it
// (fs.ErrInvalid) was the file server's 500.
type filesOnly struct{ fs.FS }

func (f filesOnly) Open(name string) (fs.File, error) {
	if ext := path.Ext(name); !fs.ValidPath(name) || ext != ".css" && ext != ".js" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	file, err := f.FS.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, err := file.Stat(); err != nil || fi.IsDir() {
		file.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return file, nil
}

type server struct {
	open      func() (*ops.Session, error)
	slots     chan struct{}
	reading   sync.Mutex // held by the request using the session
	summaries summaryCache
	views     viewCache
}

// one serves h while no other request uses the session: the page's one
// session (its settings, memos and caches) is not for concurrent use.
func (s *server) one(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.reading.Lock()
		defer s.reading.Unlock()
		if r.Context().Err() != nil {
			return // the browser went away while it waited
		}
		h(w, r)
	}
}

func (s *server) bounded(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
			h.ServeHTTP(w, r)
		case <-r.Context().Done():
		}
	})
}

// recordView is a record as the task page lists it: its summary line, its
// stored JSON, indented, its commit's signature and the surface it was
// written through.
type recordView struct {
	*record.Entry
	Summary   string
	JSON      string
	Signature *ops.Signature
	Surface   string
	Withdrawn string // the id of the withdrawal that withdrew it, if any
}

func (s *server) task(w http.ResponseWriter, r *http.Request) {
	task := r.PathValue("task")
	if err := record.CheckTask(task); err != nil {
		http.Error(w, "no such task", http.StatusNotFound)
		return
	}
	sess := s.session(w)
	if sess == nil {
		return
	}
	head, _ := pageDigest(r.Context(), sess, task, nil) // before what the page shows is read
	data := map[string]any{"Title": task, "Live": "/head?task=" + url.QueryEscape(task), "Head": head}
	v, err := s.views.get(r.Context(), sess, task)
	switch {
	case errors.Is(err, ops.ErrUsage):
		// No local history: a task whose only history a pull held back
		// has a page that says so.
		if q := quarantineOf(r.Context(), sess, task); q != nil {
			data["Quarantine"], data["Absent"] = q, true
			render(w, "task.html", data)
			return
		}
		http.Error(w, record.Printable(err.Error()), http.StatusNotFound)
		return
	case errors.Is(err, record.ErrUnreadable):
		// The page says why the task does not read, as status does.
		data["Unreadable"] = err.Error()
		render(w, "task.html", data)
		return
	case err != nil:
		fail(w, err)
		return
	}
	// Signatures are judged against the allowed signers as they are now:
	// the checks are kept by head, dropped when the signers change, and
	// git is asked only about commits since (ops.RecordSignatures).
	sigs, err := s.views.signatures(r.Context(), sess, task, v)
	if err != nil {
		data["SignaturesError"] = err.Error()
	}
	shown, tl := timelineWindow(v.records, r.URL.Query())
	recs := slices.Clone(shown)
	onPage := make(map[string]bool, len(recs))
	for i := range recs {
		recs[i].Signature = sigs[recs[i].ID]
		onPage[recs[i].ID] = true
	}
	// A record off the timeline shown is a page away: its node leads
	// there, not to an anchor this page lacks.
	g := v.graph
	g.Nodes = slices.Clone(g.Nodes)
	for i := range g.Nodes {
		g.Nodes[i].Href = recordHref(onPage, g.Nodes[i].ID)
	}
	data["Status"], data["Report"], data["Records"], data["Graph"], data["Timeline"] = v.status, v.report, recs, g, tl
	data["OnPage"] = onPage
	// A long task's graph (a row per record) and report come on demand:
	// its first view is its summary and latest records.
	long := len(v.records) > onDemand
	data["GraphShown"] = !long || r.URL.Query().Get("graph") != ""
	data["ReportShown"] = !long || r.URL.Query().Get("report") != ""
	// What merges made inadmissible and no person has settled yet, as
	// status says it: a settled one is history, not a warning.
	if needs, err := sess.TaskNeeds(r.Context(), task); err == nil && len(needs) > 0 {
		data["Refusals"] = needs
	}
	if q := quarantineOf(r.Context(), sess, task); q != nil {
		data["Quarantine"] = q
	}
	render(w, "task.html", data)
}

// recordHref is where a link to record id on its task's page leads:
// its anchor when the timeline shown holds it (onPage), else the page of
// the timeline that does.
func recordHref(onPage map[string]bool, id string) string {
	if onPage[id] {
		return "#rec-" + id
	}
	return "?record=" + url.QueryEscape(id) + "#rec-" + id
}

// quarantineOf is the fetched history of task a pull held back, nil when
// none was (or the quarantine file does not read: the page shows the rest).
func quarantineOf(ctx context.Context, sess *ops.Session, task string) *ops.Quarantine {
	held, err := sess.Quarantined(ctx)
	if q, ok := held[task]; err == nil && ok {
		return &q
	}
	return nil
}

// surface is the surface a record says it was written through (its
// derived "surface": cli, mcp, …), "" when it says none.
func surface(derived json.RawMessage) string {
	var d struct {
		Surface string `json:"surface"`
	}
	if len(derived) == 0 || json.Unmarshal(derived, &d) != nil {
		return ""
	}
	return d.Surface
}

// shortID is a record id as the command line prints it: its first ten
// characters (the page shows the whole id on hover).
func shortID(id string) string { return record.Printable(record.ShortID(id)) }

// mustJSON is v as stored: '<' and '&' stay as they are (the template
// escapes them for the page).
func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // a record is plain data
	}
	return b.Bytes()
}

func render(w http.ResponseWriter, name string, data any) {
	renderStatus(w, http.StatusOK, name, data)
}

func renderStatus(w http.ResponseWriter, status int, name string, data any) {
	var b bytes.Buffer
	if err := pages().ExecuteTemplate(&b, name, data); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// session is the request's session; when it does not open, the answer is
// fail's and session returns nil.
func (s *server) session(w http.ResponseWriter) *ops.Session {
	sess, err := s.open()
	if err != nil {
		fail(w, err)
		return nil
	}
	return sess
}

// filtered is a page whose query a user types (context's range,
// handover's filters): a query that does not parse is shown on the page
// itself, with status 400; anything else that fails is a 500 (fail).
type filtered struct {
	w    http.ResponseWriter
	name string // the page's template
	data map[string]any
}

// refuse shows err on the page, with status 400.
func (p filtered) refuse(err error) {
	p.data["Error"] = err.Error()
	renderStatus(p.w, http.StatusBadRequest, p.name, p.data)
}

// failed answers err when there is one, a usage error as refuse does, and
// reports whether it answered.
func (p filtered) failed(err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, ops.ErrUsage):
		p.refuse(err)
	default:
		fail(p.w, err)
	}
	return true
}

func fail(w http.ResponseWriter, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	http.Error(w, record.Printable(err.Error()), http.StatusInternalServerError)
}
