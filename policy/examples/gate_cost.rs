//! The policy gate's cost per resolved call: `PolicyGate::decide` (the policies that
//! can apply by their scope, their conditions compiled and evaluated over the call's
//! arguments) with 10, 100 and 1,000 policies over the captured server-filesystem
//! listing, beside the same decisions by Cedar's evaluator (`is_authorized` with the
//! arguments typed into Cedar's context) and resolution's cost for the same call (the
//! dynamic resolver, as the gateway resolves). Paired within rounds; medians
//! of per-round times and ratios, printed — speed belongs here, not in a test.
//!
//! `cargo run --release -p toolseal-policy --example gate_cost -- [ROUNDS]` (an example of
//! this crate, so that its release build is the gate's and not the benchmark harness's).

use std::hint::black_box;
use std::time::Instant;

use serde_json::{Value, json};
use toolseal_policy::{Policies, PolicyFile, PolicyGate, PolicySchema, Principal, Tool};
use toolseal_runtime::Options;
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::CompileOptions;

const BATCH: usize = 200;

/// The tools of server-filesystem whose `path` is a required string.
const PATH_TOOLS: [&str; 11] =
    ["create_directory", "directory_tree", "edit_file", "get_file_info", "list_directory", "list_directory_with_sizes", "read_file", "read_media_file", "read_text_file", "search_files", "write_file"];

/// `n` policies: one permit for everyone, then forbids spread over the tools (a `like`
/// on the path), every tenth one on any tool (a group test on the principal).
fn policies(n: usize) -> String {
    let mut text = String::from("permit(principal, action, resource);\n");
    for k in 1..n {
        if k % 10 == 0 {
            text += &format!("forbid(principal, action, resource) when {{ principal.groups.contains(\"blocked-{k}\") }};\n");
        } else {
            let tool = PATH_TOOLS[k % PATH_TOOLS.len()];
            text += &format!("forbid(principal, action == Action::\"files__{tool}\", resource) when {{ context.input.path like \"*secret-{k}*\" }};\n");
        }
    }
    text
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let rounds: usize = std::env::args().nth(1).map(|r| r.parse().expect("ROUNDS is a number")).unwrap_or(200);
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/registries/mcp/server-filesystem.json")).expect("the captured listing");
    let registry = read_registry(&bytes).expect("a registry");
    let inputs: Vec<(String, Value)> = registry.tools.iter().map(|t| (format!("files__{}", t.name), t.input_schema.to_value())).collect();
    let schema = PolicySchema::new(inputs.iter().map(|(action, input)| Tool { action, server: "files", tier: "first-party", input_schema: input })).expect("the schema");
    let principals = [Principal { name: "alice".into(), groups: vec!["editors".into()] }];
    let gates: Vec<(usize, PolicyGate)> = [10, 100, 1000]
        .into_iter()
        .map(|n| {
            let file = PolicyFile { path: format!("bench-{n}.cedar"), text: policies(n) };
            let loaded = Policies::load(&schema, &[file]).unwrap_or_else(|e| panic!("{e}"));
            (n, PolicyGate::new(schema.clone(), loaded, &principals).expect("a gate"))
        })
        .collect();
    let resolver = DynamicRegistry::new(&registry, &CompileOptions::default());
    let call = br#"{"name":"write_file","arguments":{"path":"/srv/out/notes.txt","content":"hello"}}"#;
    let arguments = json!({"path": "/srv/out/notes.txt", "content": "hello"});
    let arguments = arguments.as_object().expect("an object");
    let strict = Options::strict();
    assert!(resolver.resolve(call, &strict).is_ok(), "the call resolves");
    for (n, gate) in &gates {
        assert_eq!(gate.decide("alice", "files__write_file", "files", Some(arguments)).decision, toolseal_runtime::pipeline::Decision::Allow, "{n} policies allow it");
        assert_eq!(
            gate.decide_by_cedar("alice", "files__write_file", "files", Some(arguments), true),
            gate.decide("alice", "files__write_file", "files", Some(arguments)),
            "{n} policies: Cedar agrees"
        );
        assert!(gate.compiled("alice", "files__write_file"), "{n} policies: the gate evaluates their conditions itself");
    }
    type Contestant<'a> = (String, Box<dyn Fn() + 'a>);
    for (n, gate) in &gates {
        println!("{n} policies: {} apply to alice's calls of files__write_file by their scope", gate.applicable("alice", "files__write_file"));
    }
    let mut all: Vec<Contestant<'_>> = vec![("resolution (dynamic resolver)".into(), Box::new(|| drop(black_box(resolver.resolve(black_box(call), &strict)))))];
    for (n, gate) in &gates {
        all.push((format!("gate, {n} policies"), Box::new(move || drop(black_box(gate.decide("alice", "files__write_file", "files", Some(black_box(arguments))))))));
        all.push((format!("  by Cedar's evaluator, {n}"), Box::new(move || drop(black_box(gate.decide_by_cedar("alice", "files__write_file", "files", Some(black_box(arguments)), true))))));
    }
    let mut times = vec![Vec::with_capacity(rounds); all.len()];
    let start = Instant::now();
    for round in 0..rounds {
        for k in 0..all.len() {
            let i = (k + round) % all.len();
            let t = Instant::now();
            for _ in 0..BATCH {
                (all[i].1)();
            }
            times[i].push(t.elapsed().as_nanos() as f64 / BATCH as f64);
        }
    }
    println!("Policy gate: {rounds} rounds × {BATCH} calls per contestant, {:.1} s, {} cores", start.elapsed().as_secs_f64(), std::thread::available_parallelism().map_or(1, |n| n.get()));
    println!("`cargo run --release -p toolseal-policy --example gate_cost -- {rounds}`\n");
    println!("{:32} {:>10} {:>10} {:>10} {:>22}", "contestant", "median ns", "p10", "p90", "median / resolution");
    for (i, (label, _)) in all.iter().enumerate() {
        let mut sorted = times[i].clone();
        sorted.sort_by(f64::total_cmp);
        let mut ratios: Vec<f64> = times[i].iter().zip(&times[0]).map(|(a, b)| a / b).collect();
        ratios.sort_by(f64::total_cmp);
        println!("{label:32} {:>10.0} {:>10.0} {:>10.0} {:>21.2}×", percentile(&sorted, 0.5), percentile(&sorted, 0.1), percentile(&sorted, 0.9), percentile(&ratios, 0.5));
    }
}
