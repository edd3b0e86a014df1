package schemas

import "strings"

// TextDef is where an input document (<kind>.input.json) defines a text
// that must not be blank, and where a write tool's input schema, made
// from a body schema and its input document, defines it too.
const TextDef = "#/$defs/text"

// BlankMessage says what is wrong with a blank text and what to do.
const BlankMessage = "is blank: write it out (spaces, line breaks and invisible characters alone say nothing)"

// Blank reports whether a violation is a blank text: the value failed the
// pattern of a TextDef.
func Blank(e *ValidationError) bool {
	return strings.HasSuffix(e.AbsoluteKeywordLocation, TextDef+"/pattern")
}
