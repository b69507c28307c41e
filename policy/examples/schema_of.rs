//! The Cedar schema (JSON form) toolseal generates for captured tool listings, one
//! server per listing: `cargo run -p toolseal-policy --example schema_of -- SERVER=LISTING.json …`.
//! `scripts/check_cedar_schema.py` compares it with cedar-for-agents' generator.

use serde_json::Value;
use toolseal_policy::{PolicySchema, Tool};
use toolseal_runtime::registry::read_registry;

fn main() {
    let mut tools: Vec<(String, String, Value)> = Vec::new();
    for argument in std::env::args().skip(1) {
        let (server, path) = argument.split_once('=').expect("SERVER=LISTING.json");
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let registry = read_registry(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
        tools.extend(registry.tools.iter().map(|t| (format!("{server}__{}", t.name), server.to_owned(), t.input_schema.to_value())));
    }
    let schema = PolicySchema::new(tools.iter().map(|(action, server, input)| Tool { action, server, tier: "first-party", input_schema: input })).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", serde_json::to_string_pretty(&schema.json().unwrap_or_else(|e| panic!("{e}"))).expect("JSON"));
}
