// Package ops is the operations layer the command line calls, and any
// other surface would: each operation takes a context and a request and
// returns a result. Operations never print; warnings go to Options.Warn.
package ops
