// Package storetest is the contract suite every record.Store runs: the
// store's own promises (load, compare-and-swap append, listing) and the
// writer's admission rules exercised through that store. Each store's test
// file is a few lines calling Run.
package storetest
