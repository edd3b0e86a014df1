// Package web is the Reasoning page: a read-only local web view of the
// same derivation the command line shows (every task's status, one task's
// timeline, report, record graph and records, the handover with the
// filters of 'git reason handover', and the context of a range of commits
// as 'git reason context' derives it).
//
// It writes nothing. Every request opens the repository afresh through the
// Open function it is given, so a write or a pull shows on the next reload.
// Every request must name a loopback Host and carry the page's token,
// either in the URL (?token=…, as printed at start, which sets a cookie and
// redirects to the same page without it) or in that cookie, or a one-time
// code in the URL (?code=…, what a browser started by --open is handed on
// its command line, where the token must never be: it sets the cookie
// once, within two minutes). The redirect leads only to a path of this
// server, cleaned from the parsed path, whatever the request target. Every text
// from a record goes through html/template's escaping; the pages load
// nothing from elsewhere (the style sheet is embedded, the record graph is
// an inline SVG drawn here) and a Content-Security-Policy of 'self' holds
// the browser to that.
package web
