// Package storetest is the contract suite every record.Store runs: the
// store's own promises (load, compare-and-swap append, listing) and the
// writer's admission rules exercised through that store. Each store's test
// file is a few lines calling Run.
//
// Faulty wraps any store and injects the faults real stores meet (an
// append that loses a race, an append that fails after its write, a slow
// load); RunFaults runs the whole suite through it and checks the writer
// under each fault: it re-derives and retries after a conflict, neither
// loses nor duplicates a record whose store failed after writing it, and
// returns promptly when its context ends during a slow load.
package storetest
