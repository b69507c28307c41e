#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets) for a bounded time each,
# from the committed seed corpora. Needs a nightly toolchain; without one it
# says so and exits 0. A crash fails the run (the input is kept under fuzz/artifacts).
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 20)
set -euo pipefail
seconds=${1:-20}
cd "$(dirname "$0")/../fuzz"
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "fuzz: no nightly toolchain here; skipped (cargo fuzz needs nightly)"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo +nightly install cargo-fuzz --locked --quiet
fi
cargo +nightly fuzz build -O
for target in resolve wire registry qualified json; do
  mkdir -p "corpus/$target"
  # Run on a scratch copy, so the committed seeds stay as they are.
  scratch=$(mktemp -d)
  cp "corpus/$target"/* "$scratch"/
  line=$(cargo +nightly fuzz run -O "$target" "$scratch" -- -max_total_time="$seconds" -max_len=4096 2>&1 | grep -E '^Done [0-9]+ runs' || true)
  rm -rf "$scratch"
  [ -n "$line" ] || { echo "fuzz: $target FAILED (see fuzz/artifacts/$target)"; exit 1; }
  echo "fuzz: $target: $line, no crash"
done
