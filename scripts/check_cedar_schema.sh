#!/usr/bin/env bash
# toolseal's Cedar schema beside cedar-for-agents' generator (PyPI
# cedar-policy-mcp-schema-generator, pinned) for every captured listing under
# tests/registries/mcp: arguments both type must agree (scripts/check_cedar_schema.py
# says how they are compared and prints the differences).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check cedar-policy-mcp-schema-generator==0.7.0
cd "$repo"
# The workspace's feature set, as `cargo test --workspace` built it (a no-op after the tests).
cargo build -q --locked --workspace --exclude toolseal-ui --example schema_of
pairs=()
for listing in tests/registries/mcp/*.json; do
  ours="$work/$(basename "$listing")"
  "${CARGO_TARGET_DIR:-target}/debug/examples/schema_of" "s=$listing" > "$ours"
  pairs+=("$listing" "$ours")
done
"$work/venv/bin/python" scripts/check_cedar_schema.py "${pairs[@]}"
