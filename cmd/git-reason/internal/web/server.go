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
	"strings"
	"sync"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

//go:embed assets/*.html assets/*.css
var assets embed.FS

// pages are parsed on the first page served: every other command of the
// binary would pay for them at start-up.
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"p":    record.Printable,
		"text": record.PrintableText,
		// commit is a commit's hash as git abbreviates it in a list.
		"commit": func(h string) string { return record.Printable(h[:min(len(h), 12)]) },
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
// page reads the refs as they are now.
func handler(open func() (*ops.Session, error), k *keys) http.Handler {
	s := &server{open: open, slots: make(chan struct{}, maxConcurrent)}
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /{$}", s.tasks)
	mux.HandleFunc("GET /task/{task...}", s.task) // a task name may hold slashes
	mux.HandleFunc("GET /handover", s.handover)
	mux.HandleFunc("GET /context", s.context)
	return protect(k, s.bounded(mux))
}

type server struct {
	open  func() (*ops.Session, error)
	slots chan struct{}
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

func (s *server) tasks(w http.ResponseWriter, r *http.Request) {
	sess, err := s.open()
	if err != nil {
		fail(w, err)
		return
	}
	all, err := sess.StatusAll(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	phase, q := r.URL.Query().Get("phase"), strings.TrimSpace(r.URL.Query().Get("q"))
	rows := []record.Status{}
	for _, st := range all {
		if phase != "" && string(st.Phase) != phase {
			continue
		}
		if q != "" && !contains(st.Task, q) && !contains(st.Subject, q) {
			continue
		}
		rows = append(rows, st)
	}
	render(w, "tasks.html", map[string]any{
		"Title": "Tasks", "Rows": rows, "Total": len(all), "Phase": phase, "Q": q, "Phases": phases,
	})
}

func contains(s, sub string) bool { return strings.Contains(strings.ToLower(s), strings.ToLower(sub)) }

// recordView is a record as the task page lists it: its summary line and
// its stored JSON, indented.
type recordView struct {
	*record.Entry
	Summary string
	JSON    string
}

func (s *server) task(w http.ResponseWriter, r *http.Request) {
	task := r.PathValue("task")
	if err := record.CheckTask(task); err != nil {
		http.Error(w, "no such task", http.StatusNotFound)
		return
	}
	sess, err := s.open()
	if err != nil {
		fail(w, err)
		return
	}
	st, _, err := sess.State(r.Context(), task)
	if errors.Is(err, ops.ErrUsage) {
		http.Error(w, record.Printable(err.Error()), http.StatusNotFound)
		return
	}
	if err != nil {
		fail(w, err)
		return
	}
	recs := make([]recordView, 0, len(st.Entries))
	for _, e := range st.Entries {
		var b bytes.Buffer
		_ = json.Indent(&b, mustJSON(e.Record), "", "  ")
		recs = append(recs, recordView{Entry: e, Summary: record.Summary(e), JSON: b.String()})
	}
	render(w, "task.html", map[string]any{
		"Title": task, "Status": st.Summarize(), "Report": st.Report(),
		"Records": recs, "Graph": drawGraph(st),
	})
}

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

func fail(w http.ResponseWriter, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	http.Error(w, record.Printable(err.Error()), http.StatusInternalServerError)
}
