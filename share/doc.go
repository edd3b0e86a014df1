// Package share embeds the declarative tables of git reason: the advisors
// (advisors.yaml, with the capability vocabulary), the providers through which
// they are reached (providers.yaml), the vendors and their models
// (vendors.yaml) and the execution profiles with their modes (profiles.yaml);
// besides them, the MCP server's tools with their execution policy
// (tools.yaml) and the question budget per transport of an advisor that
// states none (context.yaml).
//
// These files are the only place in the code base that names a provider, a
// vendor or a model; every other package refers to them by id and must stay
// neutral. The package holds data only: parsing, overlays and validation live
// in package advisor (tools.yaml is read by the operations layer, ops.Tools),
// and the schemas of the files in package schemas (share.<name>.json).
package share
