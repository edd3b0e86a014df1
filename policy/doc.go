// Package policy holds the pure decisions of git reason: whether a stated
// uncertainty warrants independent review, how much review the mode allows,
// which capabilities the review needs, and which advisors a plan selects from
// a given availability snapshot.
//
// The package does no I/O, reads no clock and no environment, and names no
// advisor: time and availability are arguments. A test holds this by reading
// its import graph.
package policy
