#!/usr/bin/env bash
# Every published crate packages (`cargo package --no-verify`) with what it needs and
# nothing else: its manifest, README and sources; none of the workspace's test
# registries, vendored suites, benchmark data or other crates; each under 1 MiB
# compressed. The published crates are the workspace members without `publish = false`.
set -euo pipefail
cd "$(dirname "$0")/.."
crates=(toolseal toolseal-runtime toolseal-build toolseal-macros toolseal-gateway toolseal-policy toolseal-cli)
# The list above must be exactly the members that can be published.
publishable=$(cargo metadata --no-deps --format-version 1 --locked | python3 -c '
import json, sys
m = json.load(sys.stdin)
print(" ".join(sorted(p["name"] for p in m["packages"] if p.get("publish") != [])))')
listed=$(printf '%s\n' "${crates[@]}" | sort | tr '\n' ' ' | sed 's/ $//')
if [ "$publishable" != "$listed" ]; then
  echo "check_packages: the publishable members are [$publishable], the script checks [$listed]" >&2
  exit 1
fi
args=()
for c in "${crates[@]}"; do args+=(-p "$c"); done
rm -rf target/package
cargo package --no-verify --locked --allow-dirty "${args[@]}" 2>&1 | grep -E '^ *Packaged|^error' || true
failed=0
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
for c in "${crates[@]}"; do
  file="target/package/$c-$version.crate"
  if [ ! -f "$file" ]; then
    echo "FAIL $c: not packaged"; failed=$((failed + 1)); continue
  fi
  files=$(tar tzf "$file" | sed "s|^$c-$version/||")
  n=$(printf '%s\n' "$files" | wc -l)
  bytes=$(stat -c %s "$file")
  bad=$(printf '%s\n' "$files" | grep -E '^(tests/(registries|suite|deployments|snapshots|wire|ui)|data/|bench/|fuzz/|runtime/|macros/|build-support/|gateway/|policy/|cli/|scripts/|\.ci/)' || true)
  missing=""
  for need in Cargo.toml README.md; do printf '%s\n' "$files" | grep -qx "$need" || missing="$missing $need"; done
  printf '%s\n' "$files" | grep -qE '^src/(lib|main)\.rs$' || missing="$missing src/lib.rs|src/main.rs"
  if [ -n "$bad" ] || [ -n "$missing" ] || [ "$bytes" -gt 1048576 ]; then
    echo "FAIL $c: $n files, $bytes bytes; missing:${missing:- none}; not its own: ${bad:-none}"
    failed=$((failed + 1))
  else
    echo "ok   $c: $n files, $bytes bytes compressed"
  fi
done
# The library's default build: nothing async, nothing HTTP, no framework's crates (the
# adapters are features: `guard`, `rig`, `async-openai`, `genai`).
tree() { cargo tree -p toolseal -e normal --prefix none --locked "$@" | sed 's/ (.*//' | sort -u; }
default=$(tree)
extra=$(grep -E '^(rmcp|rig-core|rig-agent|async-openai|genai|tokio|reqwest|hyper|cedar-policy) ' <<< "$default" || true)
all=$(tree --features guard,rig,async-openai,genai | wc -l)
if [ -n "$extra" ]; then
  echo "FAIL toolseal: its default features pull in $(tr '\n' ' ' <<< "$extra")"; failed=$((failed + 1))
else
  echo "ok   toolseal: $(wc -l <<< "$default") crates in its default build, none of the frameworks' ($all with guard, rig, async-openai, genai)"
fi
echo "packages: $(( ${#crates[@]} - failed )) passed, $failed failed"
[ "$failed" -eq 0 ]
