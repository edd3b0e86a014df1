package web

import (
	"fmt"
	"net/http"
	"strings"

	"git-reason/cmd/git-reason/internal/ops"
)

// maxRange bounds the range a page may ask git about.
const maxRange = 512

// contextTask is one task of the context page with its graph laid out.
type contextTask struct {
	*ops.ContextTask
	Graph graph
}

// context is the context page: the reasoning behind a range of commits,
// the same derivation as 'git reason context [RANGE]' (default: from the
// merge base with the upstream or default branch to HEAD). Its record
// graphs are drawn here as inline SVG, so the page needs no diagram
// library. A range git does not read is shown on the page, with 400.
func (s *server) context(w http.ResponseWriter, r *http.Request) {
	rg := strings.TrimSpace(r.URL.Query().Get("range"))
	data := map[string]any{"Title": "Context", "Range": rg}
	page := filtered{w, "context.html", data}
	if len(rg) > maxRange {
		page.refuse(fmt.Errorf("range is longer than %d characters", maxRange))
		return
	}
	sess := s.session(w)
	if sess == nil {
		return
	}
	rep, err := sess.Context(r.Context(), ops.ContextQuery{Range: rg})
	if page.failed(err) {
		return
	}
	tasks := make([]contextTask, len(rep.Tasks))
	for i := range rep.Tasks {
		t := &rep.Tasks[i]
		tasks[i] = contextTask{ContextTask: t, Graph: drawContextGraph(t.Task, fmt.Sprintf("arrow-%d", i), t.Graph)}
	}
	data["Report"], data["Tasks"] = rep, tasks
	render(w, "context.html", data)
}
