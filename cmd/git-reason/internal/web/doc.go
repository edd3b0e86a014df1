// Package web is the Reasoning page: a read-only local web view of the
// same derivation the command line shows (the task list from the cached
// summaries, filtered by phase, open or closed, actor, signatures,
// quarantine and text through the search index's terms, and paginated; one task's
// timeline, fifty records a page, the latest first, its rendered report and
// record graph (on demand past 200 records), its records with their
// signature status, and the fetched history a pull held back and why; the
// handover with the filters of 'git reason handover'; the context of a
// range of commits as 'git reason context' derives it; every declared
// advisor's availability and the doctor's findings with their fixes).
//
// It writes no record and no ref (only the caches under .git/reason/ its
// reads keep). Every request reads the refs and files afresh through the
// session the Open function gives (a resident one, which reads git
// configuration, allowed signers and declarations again when they
// change), one request at a time, so a write or a pull shows on the next
// request; the list and a task page poll /head with their own script and
// swap in their new content when it moves: a digest of what the page
// shows (every task's head or the task's, the configuration signatures
// are judged by, the quarantined histories and refused records), which a
// quarantine or a change of allowed signers moves as a record does.
// What is derived from the refs alone is kept between requests
// only with the refs it was derived at (the list's summaries with every
// task's head, re-reading only the tasks that moved; a task's view with
// its head), so nothing shown is older than the refs.
//
// Every request must name a loopback Host and carry the page's token,
// either in the URL (?token=…, as printed at start, which sets a cookie and
// redirects to the same page without it) or in that cookie, or a one-time
// code in the URL (?code=…, what a browser started by --open is handed on
// its command line, where the token must never be: it sets the cookie
// once, within two minutes). The redirect leads only to a path of this
// server, cleaned from the parsed path, whatever the request target. Every
// text from a record goes through html/template's escaping, or through
// goldmark with raw HTML refused and links and images turned back into
// text (the report); the pages load nothing from elsewhere (the style
// sheet and the one script are embedded, the record graph is an inline SVG
// drawn here) and a Content-Security-Policy of 'self' holds the browser to
// that.
package web
