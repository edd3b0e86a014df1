// Package schemas embeds the JSON Schema (2020-12) documents of git reason
// and owns what is done with them: compiling them and decoding the
// declarative files they describe.
//
// The documents are the record envelope, a body and a derived schema for
// each record kind, the input rules of the kinds a caller writes
// (<kind>.input.json: what a new body must say beyond its body schema, a
// required text that is not blank; the writer holds new bodies to it, and
// stored records are held to the body schema alone), the schemas of the declarations in share/ (and of the
// overlays that extend them), of .reason/neutrality.yaml, and of the JSON
// that commands print for other programs to read (output.<verb>.json,
// printed by "git reason schema <verb>"). Every document
// is self-contained: its $ref values point inside itself, so any 2020-12
// validator can check a record without this tool.
//
// [Compile] compiles a document with santhosh-tekuri/jsonschema/v5
// (draft 2020-12, formats asserted, nothing loaded from outside the
// document) on its first use and keeps it for the rest of the process, so a
// command pays only for the schemas it validates against; [CompileDocument]
// compiles one built at run time. [Leaves] lists a refusal's violations,
// each with the RFC 6901 pointer of the value at fault, in an order that
// does not depend on map iteration.
//
// [Output] holds a command's --json output, or an MCP tool's result, to
// the document it publishes before it is printed or sent. An output of
// 64 KB or more is validated by the parts of it its memo (gitstore's
// .git/reason/outputs.d) has not seen valid: the items of its lists one by
// one and the rest with only the new items; a list the document rules as
// a whole, or whose items depend on what stands around them (wholeLists),
// is validated with the rest. The library judges every part; which parts
// may be judged apart is wholeLists' reading of the document.
//
// [Decode] is the one way a declarative YAML file is read: YAML to
// a node tree, the tree validated against its schema, then decoded into a
// typed value; every fault is a [*DecodeError] reading
// "file:line:column: field: message", placed from the YAML parser's and the
// library's structured errors. Nothing here reads a file or the network:
// callers hand in the contents.
package schemas

import "embed"

// FS holds every schema document, named <kind>.body.json,
// <kind>.input.json, <kind>.derived.json, envelope.json, share.<file>.json,
// neutrality.json and output.<verb>.json.
//
//go:embed *.json
var FS embed.FS

// The documents of the declarative files.
const (
	ShareAdvisors  = "share.advisors.json"  // share/advisors.yaml
	ShareProviders = "share.providers.json" // share/providers.yaml
	ShareVendors   = "share.vendors.json"   // share/vendors.yaml
	ShareProfiles  = "share.profiles.json"  // share/profiles.yaml
	Overlay        = "share.overlay.json"   // .reason/advisors.yaml and the user's overlay
	Neutrality     = "neutrality.json"      // .reason/neutrality.yaml
	ShareTools     = "share.tools.json"     // share/tools.yaml
	ShareContext   = "share.context.json"   // share/context.yaml
)

// Outputs maps each command whose --json output has a published schema
// (its path, as typed after "git reason") to its document. The commands
// that print a record (assess, plan, ..., show ID) publish theirs as the
// record kind's documents instead; "question" is show --question.
var Outputs = map[string]string{
	"advisors":         "output.advisors.json",         // git reason advisors --json
	"check neutrality": "output.check-neutrality.json", // git reason check neutrality --json
	"consult":          "output.consult.json",          // git reason consult --json
	"context":          "output.context.json",          // git reason context --json
	"demo":             "output.demo.json",             // git reason demo --json
	"doctor":           "output.doctor.json",           // git reason doctor --json
	"handover":         "output.handover.json",         // git reason handover --json
	"hooks install":    "output.hooks.json",            // git reason hooks install --json
	"hooks status":     "output.hooks.json",            // git reason hooks status --json
	"hooks uninstall":  "output.hooks.json",            // git reason hooks uninstall --json
	"log":              "output.log.json",              // git reason log --json
	"pull":             "output.pull.json",             // git reason pull --json
	"push":             "output.push.json",             // git reason push --json
	"question":         "output.question.json",         // git reason show --question --json
	"remote setup":     "output.remote-setup.json",     // git reason remote setup --json
	"schema":           "output.schema.json",           // git reason schema --json
	"search":           "output.search.json",           // git reason search --json
	"status":           "output.status.json",           // git reason status --json
	"sync":             "output.sync.json",             // git reason sync --json
	"task delete":      "output.task-delete.json",      // git reason task delete --json
	"tasks":            "output.tasks.json",            // git reason tasks --json
	"tools":            "output.tools.json",            // git reason tools --json
	"trust":            "output.trust.json",            // git reason trust --json
	"verify":           "output.verify.json",           // git reason verify --json
	"version":          "output.version.json",          // git reason version --json
}
