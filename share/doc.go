// Package share embeds the declarative tables of git reason: the advisors
// (advisors.yaml, with the capability vocabulary), the providers through which
// they are reached (providers.yaml), the vendors and their models
// (vendors.yaml) and the execution profiles with their modes (profiles.yaml).
//
// These files are the only place in the code base that names a provider, a
// vendor or a model; every other package refers to them by id and must stay
// neutral. The package holds data only: parsing, overlays and validation live
// in package advisor, and the schemas of the files in package schemas
// (share.<name>.json).
package share
