package gitstore

// TasksRead is how many times this process read a task's records at a
// head (Cost.Tasks).
func TasksRead() int64 { return costs.tasks.Load() }
