package gitstore

// TasksRead is how many times this process read a task's records at a
// head (Cost.Tasks).
func TasksRead() int64 { return costs.tasks.Load() }

// SearchRead is what this process's queries read of the search index:
// task blocks, entries of its terms and bytes of files holding every
// task (Cost.SearchBlocks, Cost.Postings, Cost.SharedBytes).
func SearchRead() (blocks, postings, shared int64) {
	return costs.searchBlocks.Load(), costs.postings.Load(), costs.sharedBytes.Load()
}
