package advisor

import (
	"fmt"

	"git-reason/schemas"
)

// ParseError is a declaration file that is not what its schema says: bad
// YAML, an unknown field, a value of the wrong type or one the schema
// refuses. It names the file, the line and column, and the field as a path
// such as advisors[2].local, and renders as "file:line:column: field:
// message". Callers treat it as bad input (exit status 2). Every
// declarative file of git reason reports its faults this one way.
type ParseError = schemas.DecodeError

// entry is one decoded section item with the keys it set and where it is.
type entry[T any] struct {
	val   T
	keys  []string
	where string
}

// sections is every section a declaration file may hold; each file's
// schema says which it does hold (the base files one or two, an overlay
// any).
type sections struct {
	Capabilities []Capability  `yaml:"capabilities"`
	Advisors     []Declaration `yaml:"advisors"`
	Providers    []Provider    `yaml:"providers"`
	Vendors      []Vendor      `yaml:"vendors"`
	Profiles     []Profile     `yaml:"profiles"`
	Order        []string      `yaml:"order"`
}

// document is one decoded declaration file.
type document struct {
	capabilities []entry[Capability]
	advisors     []entry[Declaration]
	providers    []entry[Provider]
	vendors      []entry[Vendor]
	profiles     []entry[Profile]
	order        []string
	orderWhere   string
}

// decodeFile decodes one declaration file strictly against its schema (a
// shipped one, schema "", as DecodeShipped decodes it) and
// remembers, for each entry, the keys it set (so that an overlay overrides
// only those) and its line.
func decodeFile(file, schema string, data []byte) (*document, error) {
	var s sections
	var doc *schemas.Document
	var err error
	if schema == "" { // shipped: its schema is held by a test (Load)
		doc, err = schemas.DecodeShipped(file, data, &s)
	} else {
		doc, err = schemas.Decode(file, data, schema, &s)
	}
	if err != nil {
		return nil, err
	}
	return &document{
		capabilities: entries(file, doc, "capabilities", s.Capabilities),
		advisors:     entries(file, doc, "advisors", s.Advisors),
		providers:    entries(file, doc, "providers", s.Providers),
		vendors:      entries(file, doc, "vendors", s.Vendors),
		profiles:     entries(file, doc, "profiles", s.Profiles),
		order:        s.Order,
		orderWhere:   fmt.Sprintf("%s:%d", file, doc.Line("order")),
	}, nil
}

// entries pairs a section's decoded values with the keys and lines of their
// YAML entries, and records the line as each value's first source.
func entries[T any](file string, doc *schemas.Document, key string, vals []T) []entry[T] {
	items := doc.Items(key)
	out := make([]entry[T], len(vals))
	for i := range vals {
		e := entry[T]{val: vals[i], keys: items[i].Keys, where: fmt.Sprintf("%s:%d", file, items[i].Line)}
		setSources(&e.val, []string{e.where})
		out[i] = e
	}
	return out
}
