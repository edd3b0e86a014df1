// Package policy holds the pure decisions of git reason: whether a stated
// uncertainty warrants independent review (Need), what a mode admits
// (ModeAdmits), which capabilities the review needs, and which advisors a
// plan selects from a given availability snapshot (Decide, Select). With no
// advisor selected the plan is the structured local review (LocalReview).
//
// The package does no I/O, reads no clock and no environment, and names no
// advisor: time and availability are arguments. imports_test.go holds this
// by reading the import graph: policy may import only a short list of pure
// standard packages (not time, not os, nothing of this module), and neither
// policy nor record nor gitstore may import a network package.
// layout_test.go holds the whole module to DESIGN.md's "may import" table
// (and the rules written there for the folders the table is silent on).
package policy
