# Sourced by the benchmarks that run a revision against the work tree,
# from the repository's top, once they have made $tmp (and will remove
# it). twobuilds REV PKG builds PKG (./cmd/git-reason, or ./cmd/... for
# git-reason--net too) from REV into $tmp/before and from the work tree
# into $tmp/after, as README installs it, and makes HOME a new one under
# $tmp with an identity, git's system configuration off.
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
