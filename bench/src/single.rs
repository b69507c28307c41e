//! The single-registry experiment: H1–H5 and honest calls, scripted and
//! seeded, through five pipelines built from the project's components.

use std::collections::HashMap;

use indicatif::ProgressBar;
use serde_json::Value;
use toolseal::mcp::trials::Rng;
use toolseal::pipeline::{Authorized, DigestContract, FrontierGate, Outcome, Pipeline};
use toolseal::{Class, Options};
use toolseal_runtime::probe::{Expect, probes};
use toolseal_runtime::registry::{Registry, read_registry};
use toolseal_runtime::schema::{CompileOptions, compile_tool_schema};

use crate::registry_gen::FAMILIES;
use crate::report::Table;
use crate::synthetic::ToolCall;

use crate::REGISTRY_100 as REGISTRY_JSON;

/// The trial classes, in table order.
pub const KINDS: [&str; 6] = ["H1", "H2", "H3", "H4", "H5", "honest"];

/// One scripted call in one state (a state shows one family's ten tools).
pub struct Trial {
    /// Index into [`KINDS`].
    pub kind: usize,
    /// The gate state.
    pub state: usize,
    /// The call object.
    pub call: String,
}

/// Per tool: honest calls and the probe mutations of each class.
struct Probes {
    honest: Vec<Value>,
    by_class: HashMap<Class, Vec<String>>,
}

fn tool_probes(registry: &Registry) -> HashMap<String, Probes> {
    let mut names: Vec<&str> = registry.tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    let mut out = HashMap::new();
    for tool in &registry.tools {
        let doc = compile_tool_schema(&tool.input_schema, &CompileOptions::default()).expect("the build compiled this schema");
        let mut p = Probes { honest: Vec::new(), by_class: HashMap::new() };
        for probe in probes(&names, &tool.name, &doc) {
            match probe.expect {
                Expect::Accept => p.honest.push(serde_json::from_str::<Value>(&probe.call).expect("probe JSON")["arguments"].clone()),
                Expect::Reject { class, .. } => p.by_class.entry(class).or_default().push(probe.call),
            }
        }
        out.insert(tool.name.clone(), p);
    }
    out
}

/// The tools state `state` shows (and the frontier gate allows): one family's ten.
pub fn state_tools(state: usize) -> Vec<String> {
    let (family, _, verbs) = FAMILIES[state];
    verbs.iter().map(|v| format!("{family}_{v}")).collect()
}

fn call(name: &str, arguments: &Value) -> String {
    serde_json::json!({ "name": name, "arguments": arguments }).to_string()
}

/// `per_kind` trials of each kind, from `seed`.
pub fn trials(per_kind: usize, seed: u64) -> Vec<Trial> {
    let generated: Value = serde_json::from_str(REGISTRY_JSON).expect("the synthetic registry");
    assert_eq!(generated, crate::registry_gen::registry(), "the compiled registry is the generator's");
    let registry = read_registry(REGISTRY_JSON.as_bytes()).expect("the synthetic registry");
    let probes = tool_probes(&registry);
    let all: Vec<&str> = registry.tools.iter().map(|t| t.name.as_str()).collect();
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for (kind, kind_name) in KINDS.iter().enumerate() {
        let mut made = 0;
        while made < per_kind {
            let state = rng.below(FAMILIES.len());
            let visible = state_tools(state);
            let a = rng.pick(&visible).clone();
            let pa = &probes[&a];
            let text = match *kind_name {
                "honest" => call(&a, rng.pick(&pa.honest)),
                "H4" => {
                    let b = loop {
                        let b = *rng.pick(&all);
                        if !visible.iter().any(|v| v == b) {
                            break b;
                        }
                    };
                    call(b, rng.pick(&probes[b].honest))
                }
                "H5" => {
                    // The model confuses two tools it can see: A's name, B's honest arguments.
                    let b = loop {
                        let b = rng.pick(&visible);
                        if *b != a {
                            break b;
                        }
                    };
                    call(&a, rng.pick(&probes[b.as_str()].honest))
                }
                class => {
                    let class = match class {
                        "H1" => Class::H1,
                        "H2" => Class::H2,
                        _ => Class::H3,
                    };
                    match pa.by_class.get(&class) {
                        Some(calls) => rng.pick(calls).clone(),
                        None => continue,
                    }
                }
            };
            out.push(Trial { kind, state, call: text });
            made += 1;
        }
    }
    out
}

/// The five pipelines, each deciding whether a call executes.
pub const PIPELINES: [&str; 5] = ["no defense", "gate only", "gate + contract", "resolver only", "full stack"];

/// The results of the single-registry experiment.
pub struct Results {
    /// Attack success per class and honest over-rejection, per pipeline.
    pub table: Table,
    /// How the resolver classified each kind's rejections: (kind, class, count).
    pub classified: Vec<(String, String, usize)>,
    /// H3 trials: numbers in strings, how many of those a lenient bridge accepts after coercing, and the other H3 trials.
    pub lenient: (usize, usize, usize),
}

/// Runs every trial through every pipeline.
pub fn run(trials: &[Trial], per_kind: usize, seed: u64, bar: &ProgressBar) -> Results {
    let registry = read_registry(REGISTRY_JSON.as_bytes()).expect("the synthetic registry");
    let known: HashMap<&str, String> = registry.tools.iter().map(|t| (t.name.as_str(), t.digest())).collect();
    let compiled: HashMap<&str, &str> = ToolCall::TOOLS.iter().map(|t| (t.name, t.digest)).collect();
    let mut frontier = FrontierGate::new();
    for state in 0..FAMILIES.len() {
        frontier = frontier.allow(state, state_tools(state));
    }
    let visible = |state: usize, name: &str| frontier.visible(&state).contains(&name);
    // The gate of the threat model reads only the name: a name it does not know has no policy, and fails open.
    let gate = |state: usize, name: Option<&str>| match name {
        Some(n) if known.contains_key(n) => visible(state, n),
        _ => true,
    };
    // Contract integrity: the served definition's digest equals the compiled one. A name it does not know has no contract.
    let contract = |name: Option<&str>| name.and_then(|n| known.get(n).map(|live| compiled.get(n) == Some(&live.as_str()))).unwrap_or(true);
    let full = Pipeline::new(frontier.clone()).contract(DigestContract::from_registry(&registry));
    let exec = |_: Authorized<ToolCall>| -> Result<(), String> { Ok(()) };
    let mut cells = vec![vec![(0usize, 0usize); KINDS.len()]; PIPELINES.len()];
    let mut classified: HashMap<(usize, String), usize> = HashMap::new();
    let mut lenient = (0, 0, 0);
    for trial in trials {
        let parsed: Option<Value> = serde_json::from_str(&trial.call).ok();
        let name = parsed.as_ref().and_then(|v| v["name"].as_str());
        let resolved = ToolCall::from_json(trial.call.as_bytes());
        let executed = [
            true,
            gate(trial.state, name),
            gate(trial.state, name) && contract(name),
            resolved.is_ok(),
            matches!(full.run(trial.call.as_bytes(), &trial.state, &exec).outcome, Outcome::Executed { .. }),
        ];
        let honest = KINDS[trial.kind] == "honest";
        for (p, ran) in executed.iter().enumerate() {
            let cell = &mut cells[p][trial.kind];
            cell.1 += 1;
            // Attacks count when they execute; honest calls when they do not.
            cell.0 += usize::from(*ran != honest);
        }
        let class = match &resolved {
            Ok(_) => "accepted".to_owned(),
            Err(r) => r.class().as_str().to_owned(),
        };
        *classified.entry((trial.kind, class)).or_default() += 1;
        if KINDS[trial.kind] == "H3"
            && let Err(r) = &resolved
        {
            if r.is_numeric_string() {
                lenient.0 += 1;
                lenient.1 += usize::from(ToolCall::from_json_with(trial.call.as_bytes(), &Options::lenient()).is_ok());
            } else {
                lenient.2 += 1;
            }
        }
        bar.inc(1);
    }
    let mut classified: Vec<(String, String, usize)> = classified.into_iter().map(|((k, c), n)| (KINDS[k].to_owned(), c, n)).collect();
    classified.sort();
    let table = Table {
        title: format!("Single registry: 100 tools in 10 families, 10 visible per state; {per_kind} trials per class, seed {seed}"),
        columns: KINDS.iter().map(|k| if *k == "honest" { "honest over-rejection".to_owned() } else { (*k).to_owned() }).collect(),
        rows: PIPELINES.iter().zip(cells).map(|(p, c)| ((*p).to_owned(), c)).collect(),
        cell: "attack success = share of the class's calls executed; honest = share of honest calls not executed".into(),
        provenance: "by construction: `no defense` executes everything; `gate only` and `gate + contract` read only the name, let unknown names fail open and never read arguments \
                     (the contract layer checks definition digests, which these calls do not change). Measured: `resolver only` (ToolCall::from_json) and `full stack` \
                     (Pipeline: resolve -> DigestContract -> FrontierGate -> execute), including the H5 residue: calls of one tool with another tool's honest arguments that fit its signature"
            .into(),
    };
    Results { table, classified, lenient }
}
