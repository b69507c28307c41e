//! Arbitrary server and tool names: qualified names stay within 64 characters
//! of `[a-zA-Z0-9_-]`, and a catalog built from them maps each back to its pair.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolseal::mcp::{qualified_name, valid_server_name, Catalog, Policy, ServerSpec, ToolSpec, MAX_LEN};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.split('\n');
    let server = parts.next().unwrap_or("s").to_owned();
    let tools: Vec<String> = parts.map(str::to_owned).collect();
    for tool in &tools {
        let q = qualified_name(&server, tool);
        assert!(q.len() <= MAX_LEN, "{q}");
        assert!(q.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'), "{q}");
    }
    if !valid_server_name(&server) {
        return;
    }
    let spec = ServerSpec { name: server, tier: 0, tier_name: "t".into(), tools: tools.iter().map(|t| ToolSpec { name: t.clone(), digest: String::new() }).collect() };
    if let Ok(catalog) = Catalog::new(vec![spec], &[], Policy::Strict) {
        for route in catalog.routes() {
            assert_eq!(catalog.unqualify(catalog.qualified(route)), Some(route));
        }
    }
});
