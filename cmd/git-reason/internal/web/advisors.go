package web

import (
	"context"
	"net/http"
	"time"

	"git-reason/cmd/git-reason/internal/ops"
)

// derived is a page that shows one derivation of the operations layer and
// takes nothing from its address: derive runs on the request's session
// and its data fills the template name; a failure is fail's answer.
func (s *server) derived(name string, derive func(context.Context, *ops.Session) (map[string]any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess := s.session(w)
		if sess == nil {
			return
		}
		data, err := derive(r.Context(), sess)
		if err != nil {
			fail(w, err)
			return
		}
		render(w, name, data)
	}
}

// advisors is the advisors page's data: every declared advisor as 'git
// reason advisors' derives it (availability and its reason, circuit and
// when it reopens, capabilities), with the layers that declare it, whether
// the repository's layer is trusted, and this clone's latest outcomes. It
// contacts no advisor.
func advisors(ctx context.Context, sess *ops.Session) (map[string]any, error) {
	list, err := sess.AdvisorDetails(ctx)
	return map[string]any{"Title": "Advisors", "List": list, "Now": time.Now()}, err
}

// doctor is the doctor page's data: the findings of 'git reason doctor',
// the neutrality check's among them, each with the command that fixes it,
// the profiles and the refs' integrity.
func doctor(ctx context.Context, sess *ops.Session) (map[string]any, error) {
	d, err := sess.RunDoctor(ctx)
	return map[string]any{"Title": "Doctor", "Doctor": d}, err
}
