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

// PointsDef is where an input document defines the evidence that must
// name what it points at (every kind but a note): a ref that is there and
// not blank.
const PointsDef = "#/$defs/points"

// PointsMessage says what is wrong with such evidence and what to do.
const PointsMessage = "names nothing: give the path, command, commit or url it points at as its ref (only a note's ref may be empty)"

// Points reports whether a violation is evidence that names nothing: it
// failed a keyword of a PointsDef (the ref missing, or blank).
func Points(e *ValidationError) bool {
	return strings.Contains(e.AbsoluteKeywordLocation, PointsDef+"/")
}
