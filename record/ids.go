package record

// IDPrefix is how many characters of a record id a person reads: the
// form every surface prints (the CLI, MCP texts, the Reasoning page) and
// a unique prefix commands accept.
const IDPrefix = 10

// ShortID is the form of a record id a person reads: its first IDPrefix
// characters. Every surface shortens ids through it, so that an id read
// in one place can be typed or searched in another.
func ShortID(id string) string {
	if len(id) > IDPrefix {
		return id[:IDPrefix]
	}
	return id
}

// ShortCommit is the form of a commit id a person reads (12 hex digits,
// as findings print it).
func ShortCommit(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
