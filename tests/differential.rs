//! For every fixture registry (real MCP captures, every vendor format, the
//! keyword catalogue) and every tool, probe calls are resolved four ways:
//!
//! 1. the generated `ToolCall::from_json_with` (class and pointer must match the
//!    probe's construction), and its two halves apart: the fused reader must build
//!    the very call the tree resolves to for every accepted probe, and decline
//!    every rejected one (the tree then says why);
//! 2. the dynamic resolver interpreting the same IR (same class and pointer);
//! 3. the `jsonschema` crate on the closed-world schema (same accept/reject);
//! 4. the `jsonschema` crate on the schema schemars derives from the generated
//!    types (same accept/reject): the types carry every constraint.
//!
//! Intended differences from the oracle (see the README): duplicate keys
//! (the oracle's parser keeps the last one), H1 (the oracle has no registry).

mod support;

use toolseal::{Class, Options};
use toolseal_fixtures::{FIXTURES, Reading};
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::json::Json;
use toolseal_runtime::probe::{Expect, probes};
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::{CompileOptions, Node, compile_tool_schema};

/// The call object `call` with its members in reverse order (`arguments` first, as
/// `serde_json` writes a map).
fn arguments_first(call: &str) -> String {
    match Json::parse(call.as_bytes()).expect("a probe is JSON") {
        Json::Object(mut members) => {
            members.reverse();
            Json::Object(members).to_json_string()
        }
        other => other.to_json_string(),
    }
}

/// `call` as a model might also write it: inside the call object, every
/// object's members in reverse order (`reverse`), or every key starting with
/// a letter written with a `\u` escape (`escape`); spaces around the colons
/// and commas. Neither changes what the call means.
fn rewritten(call: &str, reverse: bool, escape: bool) -> String {
    fn write(v: &Json<'_>, top: bool, reverse: bool, escape: bool, out: &mut String) {
        match v {
            Json::Object(members) => {
                let mut order: Vec<_> = members.iter().collect();
                if reverse && !top {
                    order.reverse();
                }
                out.push('{');
                for (i, (key, value)) in order.into_iter().enumerate() {
                    out.push_str(if i > 0 { " ,\n " } else { " " });
                    let quoted = Json::String(key.clone()).to_json_string();
                    match key.chars().next() {
                        Some(c) if escape && !top && c.is_ascii_alphabetic() => out.push_str(&format!("\"\\u{:04x}{}", u32::from(c), &quoted[2..])),
                        _ => out.push_str(&quoted),
                    }
                    out.push_str(" : ");
                    write(value, false, reverse, escape, out);
                }
                out.push_str(" }");
            }
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i > 0 { ", " } else { "" });
                    write(item, false, reverse, escape, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_json_string()),
        }
    }
    let mut out = String::new();
    write(&Json::parse(call.as_bytes()).expect("a probe is JSON"), true, reverse, escape, &mut out);
    out
}

#[derive(Default)]
struct Tally {
    tools: usize,
    probes: usize,
    accepted: usize,
    read: usize,
    read_rejected: usize,
    by_class: std::collections::BTreeMap<String, usize>,
    oracle_checked: usize,
    unprobed: Vec<String>,
}

#[test]
fn generated_dynamic_oracle_and_derived_schemas_agree() {
    let mut t = Tally::default();
    let mut failures = Vec::new();
    for fixture in FIXTURES {
        let bytes = std::fs::read(support::root().join(fixture.path)).expect("fixture file");
        let registry = read_registry(&bytes).expect("fixture registry reads");
        let dynamic = DynamicRegistry::new(&registry, &CompileOptions::default());
        let mut names: Vec<&str> = registry.tools.iter().map(|d| d.name.as_str()).collect();
        names.sort_unstable();
        let derived = (fixture.schemas)();
        assert_eq!(derived.len(), registry.tools.len(), "{}: one derived schema per tool", fixture.module);
        for tool in &registry.tools {
            t.tools += 1;
            let Ok(doc) = compile_tool_schema(&tool.input_schema, &CompileOptions::default()) else {
                // Quarantined: both resolvers refuse every call to it, with that class.
                let call = format!(r#"{{"name":{:?},"arguments":{{}}}}"#, tool.name);
                let classes = ((fixture.resolve)(call.as_bytes(), &Options::strict()).err().map(|r| r.class()), dynamic.resolve(call.as_bytes(), &Options::strict()).err().map(|r| r.class()));
                assert_eq!(classes, (Some(Class::Quarantined), Some(Class::Quarantined)), "{}::{}", fixture.module, tool.name);
                continue;
            };
            let oracle = support::oracle(&tool.input_schema);
            let derived_schema = &derived.iter().find(|(n, _)| *n == tool.name).expect("derived schema").1;
            let derived = support::validator(derived_schema);
            let tool_probes = probes(&names, &tool.name, &doc);
            // A root no Rust type expresses has no probe generator (tests/spec_keywords.rs and the
            // JSON-Schema-Test-Suite cover the specification validator).
            if tool_probes.is_empty() && !matches!(doc.root.node, Node::Spec(_)) {
                t.unprobed.push(format!("{}::{}", fixture.module, tool.name));
            }
            for probe in tool_probes {
                t.probes += 1;
                let here = format!("{}::{} [{}] {}", fixture.module, tool.name, probe.label, probe.call);
                let got = (fixture.resolve)(probe.call.as_bytes(), &Options::strict());
                let dyn_got = dynamic.resolve(probe.call.as_bytes(), &Options::strict());
                match (&probe.expect, &got) {
                    (Expect::Accept, Ok(r)) => {
                        t.accepted += 1;
                        assert_eq!(r.name, tool.name);
                    }
                    (Expect::Reject { class, pointer, numeric_string }, Err(r)) => {
                        *t.by_class.entry(class.to_string()).or_default() += 1;
                        if r.class() != *class || r.pointer() != pointer || r.is_numeric_string() != *numeric_string {
                            failures.push(format!("{here}\n   expected {class} at {pointer}, got {} at {}: {r}", r.class(), r.pointer()));
                        }
                    }
                    (want, got) => failures.push(format!("{here}\n   expected {want:?}, got {got:?}")),
                }
                // The reader alone, on the call as sent and with its arguments first.
                for (call, first) in [(probe.call.clone(), true), (arguments_first(&probe.call), false)] {
                    match ((fixture.reads)(call.as_bytes()), &got) {
                        (Reading::Same, Ok(_)) => t.read += usize::from(first),
                        (Reading::Rejected { rejection: r, by_reader }, Err(g)) if r.to_string() == g.to_string() && r.pointer() == g.pointer() => t.read_rejected += usize::from(by_reader && first),
                        (reading, got) => failures.push(format!("{here}\n   fused reader on {call}: {reading:?}, from_json {got:?}")),
                    }
                }
                // Keys out of the declared order, or escaped: the same verdict, and the
                // reader still builds an accepted call (its rejection the tree's own;
                // reordered keys may change which key problem comes first).
                for call in [rewritten(&probe.call, true, false), rewritten(&probe.call, false, true)] {
                    let again = (fixture.resolve)(call.as_bytes(), &Options::strict());
                    match ((fixture.reads)(call.as_bytes()), &again) {
                        (Reading::Same, Ok(a)) if got.as_ref().is_ok_and(|g| g.name == a.name) => {}
                        (Reading::Rejected { rejection: r, .. }, Err(a)) if got.is_err() && r.to_string() == a.to_string() && r.pointer() == a.pointer() => {}
                        (reading, again) => failures.push(format!("{here}\n   fused reader on {call}: {reading:?}, from_json {again:?} (as sent: {got:?})")),
                    }
                }
                match (&got, &dyn_got) {
                    (Ok(_), Ok(_)) => {}
                    (Err(a), Err(b)) if a.class() == b.class() && a.pointer() == b.pointer() && a.to_string() == b.to_string() => {}
                    (a, b) => failures.push(format!("{here}\n   generated {a:?}\n   dynamic   {b:?}")),
                }
                let duplicate = probe.label.contains("duplicate \"");
                let h1 = matches!(&probe.expect, Expect::Reject { class: Class::H1, .. });
                if !duplicate && !h1 {
                    t.oracle_checked += 1;
                    let args = support::arguments_of(&probe.call);
                    if oracle.is_valid(&args) != got.is_ok() {
                        failures.push(format!("{here}\n   oracle says valid={}, toolseal {got:?}", oracle.is_valid(&args)));
                    }
                    if derived.is_valid(&args) != got.is_ok() {
                        failures.push(format!("{here}\n   derived schema says valid={}, toolseal {got:?}\n   derived: {derived_schema}", derived.is_valid(&args)));
                    }
                }
            }
        }
    }
    println!(
        "{} fixtures, {} tools, {} probes: {} honest accepted ({} of them by the fused reader), rejected by class {:?} ({} of them by the fused reader); {} compared with the jsonschema oracle and the derived schema",
        FIXTURES.len(),
        t.tools,
        t.probes,
        t.accepted,
        t.read,
        t.by_class,
        t.read_rejected,
        t.oracle_checked
    );
    println!("tools without an honest probe: {:?}", t.unprobed);
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(t.read, t.accepted, "the fused reader builds every accepted call");
    assert!(t.unprobed.is_empty(), "every fixture tool needs honest probes: {:?}", t.unprobed);
    for class in ["H1", "H2", "H3"] {
        assert!(t.by_class.get(class).copied().unwrap_or(0) > 50, "too few {class} probes: {:?}", t.by_class);
    }
}
