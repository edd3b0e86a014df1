// Package storage holds the stress tests of the git store itself (package
// gitstore), driven through its exported API against real repositories
// while the real git binary rewrites the same repository beside it:
//
//   - TestStorageUnderGitGC: workers write objects and point refs at them
//     through long-lived and fresh Storages while git gc, repack -A -d,
//     repack -d, maintenance (loose-objects) and prune-packed loop; every
//     object must read back through both, and git fsck --strict must pass.
//   - TestUpdateRefConcurrentIncrements: goroutines and processes race
//     read-then-UpdateRef increments on one ref against git pack-refs
//     loops and readers; every acknowledged increment must be on the final
//     chain exactly once and the ref must always resolve.
//
// They have no code of their own. They skip with -short (the quick loop of
// unit and script tests); plain `go test ./...`, which CI runs, runs their
// quick form, and
//
//	GIT_REASON_LONG=1 go test ./reliability/storage -v -timeout 60m
//
// their long form. They live here, not beside gitstore's unit tests, so
// that `go test ./gitstore` takes seconds.
package storage
