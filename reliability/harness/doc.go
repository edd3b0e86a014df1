// Package harness is the support every end-to-end test of git reason
// shares: it builds the real git-reason binary (and beside it
// git-reason--net, which runs the network verbs) once and gives each test an
// environment in which git's own subcommand dispatch finds that binary and
// nothing of the machine's git setup leaks in, and it runs the real git
// for a test (Git, GitTry). It holds no tests; the reliability suites
// (reliability/...), the tests of most packages and the benchmarks
// (bench/...) import it.
//
// Binary builds git-reason and git-reason--net with the go command at
// most once per test process, with the build tags of README's install
// command (InstallTags) unless GOFLAGS names tags: the tests run the
// programs a user installs.
// The result is also kept in a per-user directory (on /dev/shm where
// that is a tmpfs, as MemoryTemp chooses, else under os.TempDir()),
// keyed by a hash of everything the build reads (the go version, build
// tags and build environment, go.mod, go.sum and every source and
// embedded file of every package of this module the programs import), so
// that the packages of one `go test ./...` run build it once between them
// while a change to any input makes a fresh build. A file lock keeps two
// packages from building the same key at once; a build lands in the cache
// by an atomic rename, so a reader never sees half a binary.
package harness
