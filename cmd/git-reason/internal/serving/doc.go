// Package serving holds the network verbs' servers, as NetProgram
// (git-reason--net) runs them: the review endpoint peers ask (serve), the
// MCP server (mcp) and the Reasoning page (web), each behind package
// guard, and the HTTP client of the advisors asked over HTTP (consult).
//
// It is wiring: what is served comes from the operations layer (ops), the
// MCP projection (mcpserver) and the page (web). It is apart from the
// command line because it links net/http, crypto/tls, html/template and
// the MCP SDK, which git-reason itself must not: see cli.NetProgram.
package serving
