package gitstore

// ReadHistoriesAsLong makes s read every history through git's processes,
// as it reads a long one, so that tests hold both readers to one result.
func ReadHistoriesAsLong(s *Store) { s.longReads = true }
