# Sourced by the benchmarks that run a revision against the work tree,
# from the repository's top. scratch makes $tmp, removed when the script
# exits (one that removes it otherwise makes its own). twobuilds REV PKG
# builds PKG (./cmd/git-reason, or ./cmd/... for git-reason--net too)
# from REV into $tmp/before and from the work tree into $tmp/after, as
# README installs it, and makes HOME a new one under $tmp with an
# identity, git's system configuration off.
scratch() { tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; }
twobuilds() {
  mkdir "$tmp/wt" "$tmp/before" "$tmp/after"
  git archive "$1" | tar -x -C "$tmp/wt"
  (cd "$tmp/wt" && go build -tags urfave_cli_no_docs,netgo -o "$tmp/before/" "$2")
  go build -tags urfave_cli_no_docs,netgo -o "$tmp/after/" "$2"
  export HOME="$tmp/home" GIT_CONFIG_NOSYSTEM=1
  mkdir -p "$HOME"
  git config --global user.name Bench
  git config --global user.email bench@example.invalid
}
