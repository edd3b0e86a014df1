# Sourced by gpgworld.sh and x509world.sh with dir and tasks set: the
# world's directories, this tree's build first on PATH, its HOME and a
# throwaway keyring (world_start); its TASKS tasks of one record each,
# written in DIR/w/clone with the signing configuration given first
# (world_tasks).
world_start() {
  mkdir -p "$dir/bin" "$dir/home" "$dir/w"
  mkdir -m 700 "$dir/gnupg"
  go build -tags urfave_cli_no_docs,netgo -o "$dir/bin/" ./cmd/...
  export HOME="$dir/home" GNUPGHOME="$dir/gnupg" GIT_CONFIG_NOSYSTEM=1 PATH="$dir/bin:$PATH"
  git config --global user.name 'Ada Tester'
  git config --global user.email ada@example.invalid
}

world_tasks() {
  git init -q "$dir/w/clone"
  cd "$dir/w/clone"
  git config commit.gpgSign true
  for kv in "$@"; do git config "${kv%%=*}" "${kv#*=}"; done
  for i in $(seq "$tasks"); do
    git reason assess "T$i" --subject "Subject $i" --question 'Which way?' --materiality trivial --reversibility reversible >/dev/null
  done
}
