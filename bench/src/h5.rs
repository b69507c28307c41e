//! H5 with and without "also fits": the residue (calls of one tool with another tool's
//! arguments that still execute) and the cost (honest calls sent to confirmation), on the
//! synthetic registry, the captured MCP listings and the AgentDojo corpus.

use std::collections::HashMap;

use toolseal::pipeline::{Authorized, DigestContract, FrontierGate, Gate, Outcome, Pipeline, all_of};
use toolseal_fixtures::FIXTURES;
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::fits::{AlsoFitsGate, OnRival};
use toolseal_runtime::json::Json;
use toolseal_runtime::probe::{Expect, probes};
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::CompileOptions;

use crate::corpus::Corpus;
use crate::live::Live;
use crate::registry_gen::FAMILIES;
use crate::report::Table;
use crate::single::{KINDS, Trial, state_tools};
use crate::synthetic::ToolCall;

/// One row: residue without, residue with the gate, honest calls sent to confirmation, and
/// the same among honest calls whose arguments have at least one key.
type Row = [(usize, usize); 4];

/// Whether call arguments have at least one key.
fn has_keys(arguments: Option<&Json<'_>>) -> bool {
    matches!(arguments, Some(Json::Object(members)) if !members.is_empty())
}

/// Counts one honest call, `weight` times: whether the gate asks about it.
fn honest(row: &mut Row, asked: bool, keys: bool, weight: usize) {
    row[2].1 += weight;
    row[2].0 += weight * usize::from(asked);
    if keys {
        row[3].1 += weight;
        row[3].0 += weight * usize::from(asked);
    }
}

/// The synthetic registry's H5 and honest trials through the full stack, with and without
/// [`AlsoFitsGate`] beside the frontier gate (the generated enum's path).
pub fn synthetic(trials: &[Trial]) -> Row {
    let registry = read_registry(crate::REGISTRY_100.as_bytes()).expect("the synthetic registry");
    let mut frontier = FrontierGate::new();
    for state in 0..FAMILIES.len() {
        frontier = frontier.allow(state, state_tools(state));
    }
    let without = Pipeline::new(frontier.clone()).contract(DigestContract::from_registry(&registry));
    let gates: Vec<Box<dyn Gate<ToolCall, usize>>> = vec![Box::new(frontier), Box::new(AlsoFitsGate::new(|s: &usize| state_tools(*s), OnRival::Confirm))];
    let with = Pipeline::new(all_of(gates)).contract(DigestContract::from_registry(&registry));
    let exec = |_: Authorized<ToolCall>| -> Result<(), String> { Ok(()) };
    let mut row = [(0, 0); 4];
    for trial in trials {
        let runs = |p: &Pipeline<ToolCall, usize>| p.run(trial.call.as_bytes(), &trial.state, &exec).outcome;
        match KINDS[trial.kind] {
            "H5" => {
                row[0].1 += 1;
                row[1].1 += 1;
                row[0].0 += usize::from(matches!(runs(&without), Outcome::Executed { .. }));
                row[1].0 += usize::from(matches!(runs(&with), Outcome::Executed { .. }));
            }
            "honest" => {
                let value: serde_json::Value = serde_json::from_str(&trial.call).unwrap_or_default();
                let keys = value.get("arguments").and_then(|a| a.as_object()).is_some_and(|a| !a.is_empty());
                honest(&mut row, matches!(runs(&with), Outcome::Pending(_)), keys, 1);
            }
            _ => {}
        }
    }
    row
}

/// Counts one H5 trial (tool `a` called with arguments that belong to another tool).
fn h5_trial(row: &mut Row, registry: &DynamicRegistry, a: &str, arguments: Option<&Json<'_>>, visible: &dyn Fn(&str) -> bool, weight: usize) {
    row[0].1 += weight;
    row[1].1 += weight;
    if registry.resolve_parts(a, arguments, &mut toolseal_runtime::check::Cx::strict()).is_ok() {
        row[0].0 += weight;
        row[1].0 += weight * usize::from(!registry.also_fits(a, arguments, visible).is_ambiguous());
    }
}

/// The captured MCP listings: every honest probe call (cost) and every other tool's name
/// with it (H5 trials), each server's tools visible, through the dynamic resolver.
pub fn captures() -> Row {
    let mut row = [(0, 0); 4];
    for fixture in FIXTURES.iter().filter(|f| f.path.starts_with("tests/registries/mcp/")) {
        let text = std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(fixture.path)).expect("a committed capture");
        let registry = read_registry(&text).expect("a registry");
        let dynamic = DynamicRegistry::new(&registry, &CompileOptions::default());
        let mut names: Vec<&str> = registry.tools.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        let all = |_: &str| true;
        for (def, doc) in dynamic.schemas() {
            for probe in probes(&names, &def.name, doc) {
                if !matches!(probe.expect, Expect::Accept) {
                    continue;
                }
                let value: serde_json::Value = serde_json::from_str(&probe.call).expect("probe JSON");
                let arguments = value.get("arguments").filter(|a| !a.is_null()).map(Json::from_value);
                let asked = dynamic.also_fits(&def.name, arguments.as_ref(), all).is_ambiguous();
                honest(&mut row, asked, has_keys(arguments.as_ref()), 1);
                for a in names.iter().filter(|a| **a != def.name) {
                    h5_trial(&mut row, &dynamic, a, arguments.as_ref(), &all, 1);
                }
            }
        }
    }
    row
}

/// The AgentDojo corpus: every call the resolver accepted (cost: sent to confirmation), and
/// each with every other tool its run saw (H5 trials). Identical calls in one tool set are
/// resolved once and weighted by their count.
pub fn agentdojo(corpus: &Corpus, live: &Live) -> Row {
    // (suite, the tools the run saw, tool, arguments) → how many times.
    type Call<'c> = (&'c str, Option<&'c Vec<String>>, &'c str, String);
    let mut distinct: HashMap<Call<'_>, usize> = HashMap::new();
    for (run, verdicts) in corpus.runs.iter().zip(&live.verdicts) {
        for (call, verdict) in run.calls.iter().zip(verdicts) {
            if let (None, Some(name)) = (verdict.class, &call.name) {
                *distinct.entry((run.suite.as_str(), run.visible.as_ref(), name.as_str(), call.arguments.to_string())).or_default() += 1;
            }
        }
    }
    let mut compiled: HashMap<(&str, Option<&Vec<String>>), DynamicRegistry> = HashMap::new();
    let mut row = [(0, 0); 4];
    let mut keys: Vec<_> = distinct.into_iter().collect();
    keys.sort();
    for ((suite, visible, name, arguments), weight) in keys {
        let registry = compiled.entry((suite, visible)).or_insert_with(|| DynamicRegistry::new(&corpus.registry_for(suite, visible), &CompileOptions::default()));
        let value: serde_json::Value = serde_json::from_str(&arguments).unwrap_or_default();
        let tree = (!value.is_null()).then(|| Json::from_value(&value));
        let all = |_: &str| true;
        let asked = registry.also_fits(name, tree.as_ref(), all).is_ambiguous();
        honest(&mut row, asked, has_keys(tree.as_ref()), weight);
        let others: Vec<String> = registry.schemas().map(|(d, _)| d.name.clone()).filter(|n| n != name).collect();
        for a in &others {
            h5_trial(&mut row, registry, a, tree.as_ref(), &all, weight);
        }
    }
    row
}

/// The H5 table from the three measurements.
pub fn table(rows: Vec<(String, Row)>) -> Table {
    Table {
        title: "H5, a schema-valid call to the wrong tool: without and with the also-fits gate".into(),
        columns: vec![
            "H5 residue without".into(),
            "H5 residue with also-fits".into(),
            "honest calls sent to confirmation".into(),
            "of those with arguments".into(),
        ],
        rows: rows.into_iter().map(|(label, row)| (label, row.to_vec())).collect(),
        cell: "residue: share of H5 trials (tool A's name, arguments that belong to another tool B) that execute; cost: share of honest calls the gate asks a person about (all, and those whose arguments have at least one key)".into(),
        provenance: "measured. Synthetic: the seeded H5 and honest trials through Pipeline (resolve -> DigestContract -> FrontierGate [+ AlsoFitsGate] -> execute), generated enum. \
                     Captures: every honest probe of each captured MCP server, and each with every other tool's name of that server, DynamicRegistry::also_fits. \
                     AgentDojo: every call the resolver accepted, and each with every other tool its run saw (identical calls weighted). The gate flags a call when another visible tool \
                     uses at least as many of its declared keys and declares no more"
            .into(),
    }
}

/// A row label with its counts.
pub fn label(what: &str, row: &Row) -> String {
    format!("{what} ({} H5 trials, {} honest calls)", row[0].1, row[2].1)
}
