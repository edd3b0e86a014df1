package web

import (
	"net/http"

	"git-reason/record"
)

// head answers what a page polls to update itself (assets/live.js): the
// head commit of ?task=TASK, or a digest of every task's ref without it.
// It is read-only and behind the same guard as every page; a page whose
// head moved fetches itself again and swaps its content, so records that
// arrive show without a reload and without anything but 'self'.
func (s *server) head(w http.ResponseWriter, r *http.Request) {
	sess, err := s.open()
	if err != nil {
		fail(w, err)
		return
	}
	var out string
	if task := r.URL.Query().Get("task"); task != "" {
		if err := record.CheckTask(task); err != nil {
			http.Error(w, "no such task", http.StatusNotFound)
			return
		}
		if out, err = sess.TaskHead(task); err != nil {
			fail(w, err)
			return
		}
	} else if out, err = sess.TasksDigest(); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(out + "\n"))
}
