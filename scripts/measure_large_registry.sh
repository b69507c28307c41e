#!/usr/bin/env bash
# Measures what CI does not: a crate outside the repository compiles the
# synthetic registry at 10 and 1,000 tools (toolseal-build in its build.rs),
# reporting the clean release build time, the no-op rebuild time, the
# generated code size, and the per-call time of an accepted call on both enums
# measured in the same run. Slow (minutes) and memory-hungry: run by hand.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# REGISTRIES=DIR takes large.json and small.json from DIR (to compare two commits on the same files).
if [ -n "${REGISTRIES:-}" ]; then
  cp "$REGISTRIES/large.json" "$REGISTRIES/small.json" "$work/"
else
  (cd "$repo" && cargo run -q --release -p toolseal-bench --bin perf-report -- --write-registry 1000 "$work/large.json")
  (cd "$repo" && cargo run -q --release -p toolseal-bench --bin perf-report -- --write-registry 10 "$work/small.json")
fi
source "$repo/scripts/external_crate.sh"
external_crate "$work/crate" large-registry "" 'serde_json = "1"'
cat > "$work/crate/build.rs" <<RS
fn main() -> Result<(), toolseal_build::Error> {
    toolseal_build::Config::new().registry_as("$work/large.json", "large").registry_as("$work/small.json", "small").compile()
}
RS
cat > "$work/crate/src/main.rs" <<'RS'
mod large { toolseal::include_registry!("large"); }
mod small { toolseal::include_registry!("small"); }

fn per_call(f: impl Fn() -> bool) -> f64 {
    let n = 200_000;
    let start = std::time::Instant::now();
    for _ in 0..n {
        assert!(std::hint::black_box(f()));
    }
    start.elapsed().as_nanos() as f64 / n as f64
}

fn main() {
    let call = br#"{"name":"payments_transfer","arguments":{"pay_id":"pay-12","amount":25.5,"currency":"USD","count":3,"date":"2026-12-02","email":"a@b.co","path":"/a","limit":5,"notify":true,"priority":"high","tags":["x"],"text":"t","pay_ref":"pay-1"}}"#;
    // Keep only the keys payments_transfer declares, so the call is honest in both registries.
    let declared: Vec<String> = large::ToolCall::argument_schemas().into_iter().find(|(n, _)| *n == "payments_transfer").map(|(_, s)| s.to_value()["properties"].as_object().expect("props").keys().cloned().collect()).expect("the tool");
    let mut v: serde_json::Value = serde_json::from_slice(call).expect("json");
    v["arguments"].as_object_mut().expect("object").retain(|k, _| declared.contains(k));
    let call = serde_json::to_vec(&v).expect("json");
    for _ in 0..3 {
        let (l, s) = (per_call(|| large::ToolCall::from_json(&call).is_ok()), per_call(|| small::ToolCall::from_json(&call).is_ok()));
        println!("accepted call: 1,000 tools {l:.0} ns, 10 tools {s:.0} ns, ratio {:.2}", l / s);
    }
}
RS
cd "$work/crate"
export CARGO_TARGET_DIR="$work/target"
start=$(date +%s)
cargo build --release --quiet
echo "clean release build (dependencies included): $(( $(date +%s) - start )) s"
lines=$(wc -l < "$(ls -d "$work"/target/release/build/large-registry-*/out/toolseal | head -1)/large.rs")
echo "generated code for 1,000 tools: $lines lines"
start=$(date +%s)
cargo build --release --quiet
echo "no-op rebuild: $(( $(date +%s) - start )) s"
touch "$work/large.json"
start=$(date +%s)
cargo build --release --quiet
echo "rebuild after touching the registry (content unchanged, file not rewritten): $(( $(date +%s) - start )) s"
# The edit loop: one tool's description changes, so code generation reruns and the crate recompiles.
sed -i '0,/"description": "/s//"description": "Edited. /' "$work/large.json"
start=$(date +%s)
cargo build --release --quiet
echo "release rebuild after editing the registry (dependencies built; code generation and the crate): $(( $(date +%s) - start )) s"
start=$(date +%s)
cargo build --quiet
echo "clean debug build (dependencies included): $(( $(date +%s) - start )) s"
sed -i '0,/"description": "Edited. /s//"description": "Edited twice. /' "$work/large.json"
start=$(date +%s)
cargo build --quiet
echo "debug rebuild after editing the registry (dependencies built): $(( $(date +%s) - start )) s"
"$work/target/release/large-registry"
