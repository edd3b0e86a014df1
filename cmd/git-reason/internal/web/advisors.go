package web

import (
	"net/http"
	"time"
)

// advisors is the advisors page: every declared advisor as 'git reason
// advisors' derives it (availability and its reason, circuit and when it
// reopens, capabilities), with the layers that declare it, whether the
// repository's layer is trusted, and this clone's latest outcomes. It
// contacts no advisor.
func (s *server) advisors(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w)
	if sess == nil {
		return
	}
	list, err := sess.AdvisorDetails(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	render(w, "advisors.html", map[string]any{"Title": "Advisors", "List": list, "Now": time.Now()})
}

// doctor is the doctor page: the findings of 'git reason doctor', the
// neutrality check's among them, each with the command that fixes it, the
// profiles and the refs' integrity.
func (s *server) doctor(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w)
	if sess == nil {
		return
	}
	d, err := sess.RunDoctor(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	render(w, "doctor.html", map[string]any{"Title": "Doctor", "Doctor": d})
}
