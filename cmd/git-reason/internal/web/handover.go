package web

import (
	"net/http"
	"strings"
	"time"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// handover is the handover page: the same derivation and filters as
// 'git reason handover' (since, task, actor), drawn as HTML. A filter that
// does not parse or names no task is shown on the page, with status 400.
func (s *server) handover(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	since := strings.TrimSpace(q.Get("since"))
	if since == "" {
		since = "7d"
	}
	task, actor := strings.TrimSpace(q.Get("task")), strings.TrimSpace(q.Get("actor"))
	data := map[string]any{"Title": "Handover", "Since": since, "Task": task, "Actor": actor}
	page := filtered{w, "handover.html", data}
	if task != "" {
		if err := record.CheckTask(task); err != nil {
			page.refuse(err)
			return
		}
	}
	sess := s.session(w)
	if sess == nil {
		return
	}
	// Read as 'git reason handover --since' and the MCP tool read it,
	// git's own date forms (yesterday, 2 weeks ago) too.
	from, err := sess.ParseWhen(r.Context(), "since", since, time.Now())
	if err != nil {
		page.refuse(err)
		return
	}
	rep, err := sess.Handover(r.Context(), ops.HandoverQuery{Since: from, Task: task, Actor: actor})
	if page.failed(err) {
		return
	}
	data["Report"] = rep
	render(w, "handover.html", data)
}
