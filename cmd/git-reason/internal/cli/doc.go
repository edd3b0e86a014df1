// Package cli is git reason's command line: one file per verb, each
// parsing its flags, calling one operation and rendering the result. Data
// goes to stdout, status and errors to stderr.
//
// Exit status: 0 done; 1 failure (git, I/O); 2 bad usage or input, nothing
// written; 3 refused by a rule (admission, neutrality, verification).
package cli
