#!/usr/bin/env bash
# Acceptance check for issue 2: a crate outside this repository depends on
# toolseal and toolseal-build by path, compiles eight real MCP tools/list
# captures (one `.registry_as(..)` each) in its build.rs, and resolves every probe
# call exactly as the `jsonschema` oracle (closed-world rule applied) says,
# with the class and pointer the probe was built for.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$repo/scripts/external_crate.sh"
external_crate "$work" external-registry-user ", features = [\"testing\"]" 'jsonschema = { version = "0.61", default-features = false }
serde_json = "1"'
servers=(server-filesystem server-filesystem-2025.8.21 server-memory server-everything server-github mcp-server-time mcp-server-fetch mcp-server-git)
{
  echo 'fn main() -> Result<(), toolseal_build::Error> {'
  echo '    toolseal_build::Config::new()'
  for s in "${servers[@]}"; do echo "        .registry_as(\"$repo/tests/registries/mcp/$s.json\", \"${s//[-.]/_}\")"; done
  echo '        .compile()'
  echo '}'
} > "$work/build.rs"
{
  for s in "${servers[@]}"; do m=${s//[-.]/_}; echo "mod $m { toolseal::include_registry!(\"$m\"); }"; done
  cat <<'RS'
use toolseal::registry::{read_registry, CompileOptions};
use toolseal::testing::{closed_world, compile_tool_schema, probes, Expect};
use toolseal::{Options, ToolSet};

fn check<C: ToolSet>(file: &str, totals: &mut (usize, usize)) {
    let registry = read_registry(&std::fs::read(file).expect("capture")).expect("registry");
    let mut names: Vec<&str> = registry.tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    for tool in &registry.tools {
        let doc = compile_tool_schema(&tool.input_schema, &CompileOptions::default()).expect("schema");
        let oracle = jsonschema::options().should_validate_formats(true).build(&closed_world(&tool.input_schema).to_value()).expect("oracle");
        for p in probes(&names, &tool.name, &doc) {
            totals.0 += 1;
            let got = C::resolve_with(p.call.as_bytes(), &Options::strict());
            let as_expected = match (&p.expect, &got) {
                (Expect::Accept, Ok(_)) => true,
                (Expect::Reject { class, pointer, .. }, Err(r)) => r.class() == *class && r.pointer() == pointer,
                _ => false,
            };
            let call: serde_json::Value = serde_json::from_str(&p.call).expect("json");
            let oracle_agrees = p.label.contains("duplicate \"") || p.label.starts_with("H1") || oracle.is_valid(&call["arguments"]) == got.is_ok();
            if !as_expected || !oracle_agrees {
                totals.1 += 1;
                eprintln!("DISAGREE {file} {} [{}]: {:?}", tool.name, p.label, got.err().map(|r| r.to_string()));
            }
        }
    }
}

fn main() {
    let mut totals = (0, 0);
RS
  for s in "${servers[@]}"; do m=${s//[-.]/_}; echo "    check::<$m::ToolCall>(\"$repo/tests/registries/mcp/$s.json\", &mut totals);"; done
  cat <<'RS'
    println!("external crate: {} probe calls over 8 real MCP captures, {} disagreements with the expected class/pointer or the jsonschema oracle", totals.0, totals.1);
    println!("external: {} passed, {} failed", totals.0 - totals.1, totals.1);
    std::process::exit(i32::from(totals.1 > 0 || totals.0 == 0));
}
RS
} > "$work/src/main.rs"
cd "$work"
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target/external}" cargo run --quiet
