// Package ops is the operations layer both surfaces (the command line and
// the MCP server) call: each operation takes a context and a request and
// returns a result. Operations never print.
package ops
