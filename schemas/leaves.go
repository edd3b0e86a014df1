package schemas

import (
	"cmp"
	"errors"
	"slices"
	"sort"
	"strings"
)

// Leaves returns the violations of a validation error, the leaves of its
// tree of causes, in an order that does not depend on the library's map
// iteration: by instance location, then keyword location, then message.
// An unknown-fields message lists its names sorted. It returns nil for an
// error that is not a *ValidationError.
func Leaves(err error) []*ValidationError {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []*ValidationError
	var walk func(*ValidationError)
	walk = func(e *ValidationError) {
		if len(e.Causes) == 0 {
			leaf := *e
			if keyword(leaf.KeywordLocation) == "additionalProperties" {
				leaf.Message = sortNames(leaf.Message)
			}
			out = append(out, &leaf)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.SortStableFunc(out, func(a, b *ValidationError) int {
		return cmp.Or(strings.Compare(a.InstanceLocation, b.InstanceLocation),
			strings.Compare(a.AbsoluteKeywordLocation, b.AbsoluteKeywordLocation),
			strings.Compare(a.Message, b.Message))
	})
	return out
}

// sortNames sorts the names of "additionalProperties 'b', 'a' not
// allowed", which the library lists in map order. A name's own quote is
// escaped (\'), so "', '" only ever separates two names.
func sortNames(msg string) string {
	const prefix, suffix = "additionalProperties '", "' not allowed"
	list, ok := strings.CutPrefix(msg, prefix)
	if list, ok2 := strings.CutSuffix(list, suffix); ok && ok2 {
		names := strings.Split(list, "', '")
		sort.Strings(names)
		return prefix + strings.Join(names, "', '") + suffix
	}
	return msg
}
