package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// head answers what a page polls to update itself (assets/live.js): the
// digest of what the page of ?task=TASK shows, or of what the task list
// shows without it (pageDigest). It is read-only and behind the same
// guard as every page; a page whose digest moved fetches itself again and
// swaps its content, so records that arrive show without a reload and
// without anything but 'self'.
func (s *server) head(w http.ResponseWriter, r *http.Request) {
	task := r.URL.Query().Get("task")
	if task != "" && record.CheckTask(task) != nil {
		http.Error(w, "no such task", http.StatusNotFound)
		return
	}
	sess := s.session(w)
	if sess == nil {
		return
	}
	var heads []record.TaskHead
	if task == "" {
		var err error
		if heads, err = sess.TaskHeads(r.Context()); err != nil {
			fail(w, err)
			return
		}
	}
	out, err := pageDigest(r.Context(), sess, task, heads)
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(out + "\n"))
}

// pageDigest moves whenever anything the page of task shows moves, or,
// for task "", anything the task list of heads (every task, as listed)
// shows: the task's head (every task's), the configuration signatures
// are judged by (allowed signers, their trust, the revocation file, the
// OpenPGP keyring once OpenPGP verdicts are kept: ops.Session.ReadDigest;
// a verdict can change with no ref moving), and the fetched histories a
// pull held back (the task's alone for its page): a pull that quarantines
// a history moves no task ref. It reads the task's ref and two small
// files, and lists the OpenPGP keyring when it is covered.
func pageDigest(ctx context.Context, sess *ops.Session, task string, heads []record.TaskHead) (string, error) {
	h := sha256.New()
	if task != "" {
		head, err := sess.TaskHead(task)
		if err != nil {
			return "", err
		}
		h.Write([]byte(head + "\n"))
	}
	for _, t := range heads {
		h.Write([]byte(t.Task + " " + t.Head + "\n"))
	}
	sigs, err := sess.ReadDigest(ctx)
	if err != nil {
		return "", err
	}
	held := any(sess.Store.LoadQuarantines())
	if task != "" {
		held = sess.Store.LoadQuarantines()[task]
	}
	// Maps encode with their keys sorted: the same content, the same
	// bytes. What merges refused is the heads' (ops.Session.TaskNeeds).
	shown, err := json.Marshal([]any{sigs, held})
	if err != nil {
		return "", err
	}
	h.Write(shown)
	return hex.EncodeToString(h.Sum(nil)), nil
}
