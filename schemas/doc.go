// Package schemas embeds the JSON Schema (2020-12) documents of git reason:
// the record envelope, a body and a derived schema for each record kind,
// and the schemas of the declarations in share/.
//
// Every document is self-contained: its $ref values point inside itself, so
// any 2020-12 validator can check a record without this tool.
package schemas

import "embed"

// FS holds every schema document, named <kind>.body.json,
// <kind>.derived.json, envelope.json and share.<file>.json.
//
//go:embed *.json
var FS embed.FS
