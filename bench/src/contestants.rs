//! What the performance comparison runs, shared by the criterion bench
//! (`benches/compare.rs`) and the paired-ratio binary (`paired`): one tool's
//! honest, H1, H2 and H3 calls, and the runtime baseline users pick today.

use std::collections::HashMap;

use serde_json::Value;
use toolseal::feedback::Feedback;
use toolseal::{Class, Options, Rejection};
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::probe::{Expect, Probe, probes};
use toolseal_runtime::registry::{Registry, read_registry};
use toolseal_runtime::schema::{CompileOptions, closed_world, compile_tool_schema};

use crate::{REGISTRY_10, REGISTRY_100, small, synthetic};

/// The tool every scenario calls (in every registry size).
pub const TOOL: &str = "payments_transfer";

/// The labels of the calls compared, with the class each is rejected with.
pub const LABELS: [(&str, Option<Class>); 4] = [("accept", None), ("reject_h1", Some(Class::H1)), ("reject_h2", Some(Class::H2)), ("reject_h3", Some(Class::H3))];

/// The probes expected to be rejected with `class`, or with `None` the honest call with all keys.
fn of_class(probes: &[Probe], class: Option<Class>) -> impl Iterator<Item = String> + '_ {
    probes
        .iter()
        .filter(move |p| match (&p.expect, class) {
            (Expect::Accept, None) => p.label.contains("all keys"),
            (Expect::Reject { class, .. }, Some(w)) => *class == w,
            _ => false,
        })
        .map(|p| p.call.clone())
}

/// The first of [`of_class`].
fn pick(probes: &[Probe], class: Option<Class>) -> Option<String> {
    of_class(probes, class).next()
}

/// The probes of `tool` in `registry`.
fn tool_probes(registry: &Registry, tool: &str) -> Vec<Probe> {
    let mut names: Vec<&str> = registry.tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    let def = registry.tools.iter().find(|t| t.name == tool).expect("the tool");
    let doc = compile_tool_schema(&def.input_schema, &CompileOptions::default()).expect("schema");
    probes(&names, tool, &doc)
}

/// Honest, H1, H2 and H3 calls of [`TOOL`], from its own probes, labelled as in [`LABELS`].
pub fn calls(registry: &Registry) -> Vec<(&'static str, String)> {
    let all = tool_probes(registry, TOOL);
    LABELS.iter().map(|(label, class)| (*label, pick(&all, *class).expect("a probe of each kind"))).collect()
}

/// What users write today: parse to a `Value`, look the tool up, validate
/// with a precompiled `jsonschema` validator (closed-world: `additionalProperties: false` written in).
pub struct JsonSchemaBaseline {
    validators: HashMap<String, jsonschema::Validator>,
}

impl JsonSchemaBaseline {
    /// One validator per tool of `registry`, formats enforced.
    pub fn new(registry: &Registry) -> JsonSchemaBaseline {
        let validators =
            registry.tools.iter().map(|t| (t.name.clone(), jsonschema::options().should_validate_formats(true).build(&closed_world(&t.input_schema).to_value()).expect("validator"))).collect();
        JsonSchemaBaseline { validators }
    }

    /// The call, or the error to send back.
    pub fn resolve(&self, bytes: &[u8]) -> Result<Value, String> {
        let call: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        let name = call["name"].as_str().ok_or("no name")?;
        let validator = self.validators.get(name).ok_or_else(|| format!("unknown tool {name}"))?;
        validator.validate(&call["arguments"]).map_err(|e| e.to_string())?;
        Ok(call)
    }
}

/// The floor with types: a plain serde struct for [`TOOL`]'s call, no validation.
#[derive(Debug, serde::Deserialize)]
pub struct TransferCall {
    /// The tool's name.
    pub name: String,
    /// Its arguments.
    pub arguments: TransferArgs,
}

/// [`TOOL`]'s arguments as plain serde fields (see [`TRANSFER_KEYS`]).
#[derive(Debug, serde::Deserialize)]
pub struct TransferArgs {
    /// `pay_id`
    pub pay_id: String,
    /// `email`
    pub email: String,
    /// `path`
    pub path: String,
    /// `amount`
    pub amount: Option<f64>,
    /// `limit`
    pub limit: Option<u64>,
}

/// The keys [`TransferArgs`] has, sorted: the benches check them against the registry's tool.
pub const TRANSFER_KEYS: &[&str] = &["amount", "email", "limit", "path", "pay_id"];

/// Whether [`TransferArgs`] has exactly the properties `registry` declares for [`TOOL`].
pub fn floor_matches(registry: &Registry) -> bool {
    let tool = registry.tools.iter().find(|t| t.name == TOOL).expect("the tool");
    let mut keys: Vec<String> = tool.input_schema.to_value()["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default();
    keys.sort();
    keys == TRANSFER_KEYS
}

/// A generated enum's `from_json`, without the call it built.
pub type Generated = fn(&[u8]) -> Result<(), Rejection>;

/// What a contestant runs on a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The generated enum's `from_json`.
    Generated,
    /// The generated enum, a rejection rendered as the model reads it
    /// (`Feedback`: the line, the closest names, the declared keys), which is
    /// what a host or gateway pays for every hallucinated call.
    GeneratedFeedback,
    /// The dynamic resolver (strict).
    Dynamic,
    /// The dynamic resolver, a rejection rendered as [`Kind::GeneratedFeedback`] renders it.
    DynamicFeedback,
    /// The runtime `jsonschema` baseline.
    JsonSchema,
    /// `serde_json::Value` alone (parsing, no lookup or validation): a floor.
    SerdeValue,
}

impl Kind {
    /// The contestant's name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Generated => "generated",
            Kind::GeneratedFeedback => "generated+feedback",
            Kind::Dynamic => "dynamic",
            Kind::DynamicFeedback => "dynamic+feedback",
            Kind::JsonSchema => "jsonschema",
            Kind::SerdeValue => "serde_value",
        }
    }
}

/// One registry's three resolvers.
pub struct Resolvers {
    /// The generated enum, when the scenario compiles one.
    pub generated: Option<Generated>,
    /// The dynamic resolver.
    pub dynamic: DynamicRegistry,
    /// The runtime `jsonschema` baseline.
    pub baseline: JsonSchemaBaseline,
}

impl Resolvers {
    /// The resolvers of `registry`.
    pub fn new(registry: &Registry, generated: Option<Generated>) -> Resolvers {
        Resolvers { generated, dynamic: DynamicRegistry::new(registry, &CompileOptions::default()), baseline: JsonSchemaBaseline::new(registry) }
    }

    /// Whether `kind` accepts `call` (a rejection's feedback rendered for the `+feedback` kinds).
    pub fn accepts(&self, kind: Kind, call: &[u8]) -> bool {
        let rendered = |r: Result<(), Rejection>| match r {
            Ok(()) => true,
            Err(r) => {
                std::hint::black_box(Feedback::from(&r));
                false
            }
        };
        match kind {
            Kind::Generated => self.generated.expect("a generated enum")(call).is_ok(),
            Kind::GeneratedFeedback => rendered(self.generated.expect("a generated enum")(call)),
            Kind::Dynamic => self.dynamic.resolve(call, &Options::strict()).is_ok(),
            Kind::DynamicFeedback => rendered(self.dynamic.resolve(call, &Options::strict()).map(drop)),
            Kind::JsonSchema => self.baseline.resolve(call).is_ok(),
            Kind::SerdeValue => serde_json::from_slice::<Value>(call).is_ok(),
        }
    }
}

/// One scenario of the comparison: its registries and their calls by label
/// (`accept`, `reject_h1`, `reject_h2`, `reject_h3`), checked to agree.
pub struct Scenario {
    /// The scenario's name in labels: the tool count of a synthetic registry, or `real`.
    pub name: String,
    /// Its registries' resolvers.
    pub registries: Vec<Resolvers>,
    /// Calls by label, each with the index of its registry.
    pub calls: Vec<(&'static str, Vec<(usize, String)>)>,
}

impl Scenario {
    /// The synthetic registry in `json` (`size` tools), its generated enum if
    /// there is one, and [`calls`] of [`TOOL`].
    pub fn synthetic(size: usize, json: &str, generated: Option<Generated>) -> Scenario {
        let registry = read_registry(json.as_bytes()).expect("registry");
        let calls = calls(&registry).into_iter().map(|(label, call)| (label, vec![(0, call)])).collect();
        Scenario { name: size.to_string(), registries: vec![Resolvers::new(&registry, generated)], calls }.checked()
    }

    /// The captured listings of the real MCP servers (`tests/registries/mcp`),
    /// each with its generated enum: every tool's honest call (all keys), every
    /// H1 probe (an invented name, the name in upper case, with a trailing space,
    /// with a homoglyph or a zero-width space) and its first H2 and H3 probe.
    pub fn real() -> Scenario {
        let mut labelled: Vec<(&'static str, Vec<(usize, String)>)> = LABELS.iter().map(|(l, _)| (*l, Vec::new())).collect();
        let mut registries = Vec::new();
        for (file, generated) in REAL {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/registries/mcp").join(file);
            let registry = read_registry(&std::fs::read(&path).expect("a committed capture")).expect("a registry");
            for tool in &registry.tools {
                let all = tool_probes(&registry, &tool.name);
                for ((_, class), (_, calls)) in LABELS.iter().zip(&mut labelled) {
                    let picked: Vec<String> = if *class == Some(Class::H1) { of_class(&all, *class).collect() } else { pick(&all, *class).into_iter().collect() };
                    calls.extend(picked.into_iter().map(|call| (registries.len(), call)));
                }
            }
            registries.push(Resolvers::new(&registry, Some(generated)));
        }
        Scenario { name: "real".into(), registries, calls: labelled }.checked()
    }

    /// The contestants this scenario has: the generated ones only with a generated enum.
    pub fn kinds(&self, label: &str) -> Vec<Kind> {
        let generated = self.registries.iter().all(|r| r.generated.is_some());
        let mut kinds = Vec::new();
        if generated {
            kinds.push(Kind::Generated);
        }
        if label != "accept" && generated {
            kinds.push(Kind::GeneratedFeedback);
        }
        kinds.push(Kind::Dynamic);
        if label != "accept" {
            kinds.push(Kind::DynamicFeedback);
        }
        kinds.push(Kind::JsonSchema);
        if label == "accept" {
            kinds.push(Kind::SerdeValue);
        }
        kinds
    }

    /// Whether `kind` accepts the `i`-th of `calls` (one label's calls of this
    /// scenario, cycled), each with its registry.
    pub fn accepts(&self, calls: &[(usize, String)], kind: Kind, i: usize) -> bool {
        let (registry, call) = &calls[i % calls.len()];
        self.registries[*registry].accepts(kind, call.as_bytes())
    }

    /// Panics unless every contestant accepts the honest calls and rejects the others.
    fn checked(self) -> Scenario {
        for (label, calls) in &self.calls {
            assert!(!calls.is_empty(), "{label}_{}: no calls", self.name);
            for kind in self.kinds(label).into_iter().filter(|k| *k != Kind::SerdeValue) {
                for (i, (_, call)) in calls.iter().enumerate() {
                    assert_eq!(self.accepts(calls, kind, i), *label == "accept", "{label}_{}/{}: {call}", self.name, kind.as_str());
                }
            }
        }
        self
    }
}

/// The captured listings of [`Scenario::real`] and their generated enums.
const REAL: [(&str, Generated); 9] = [
    ("mcp-server-fetch.json", |b| toolseal_fixtures::mcp_server_fetch::ToolCall::from_json(b).map(drop)),
    ("mcp-server-git.json", |b| toolseal_fixtures::mcp_server_git::ToolCall::from_json(b).map(drop)),
    ("mcp-server-time.json", |b| toolseal_fixtures::mcp_server_time::ToolCall::from_json(b).map(drop)),
    ("server-everything.json", |b| toolseal_fixtures::server_everything::ToolCall::from_json(b).map(drop)),
    ("server-filesystem.json", |b| toolseal_fixtures::server_filesystem::ToolCall::from_json(b).map(drop)),
    ("server-filesystem-2025.8.21.json", |b| toolseal_fixtures::server_filesystem_2025_8_21::ToolCall::from_json(b).map(drop)),
    ("server-github.json", |b| toolseal_fixtures::server_github::ToolCall::from_json(b).map(drop)),
    ("server-memory.json", |b| toolseal_fixtures::server_memory::ToolCall::from_json(b).map(drop)),
    ("server-sequential-thinking.json", |b| toolseal_fixtures::server_sequential_thinking::ToolCall::from_json(b).map(drop)),
];

/// The scenarios compared: the first 10 tools of the synthetic registry and all
/// 100 with their generated enums (with feature `large` the 1,000-tool one too),
/// 10,000 tools through the dynamic resolver, and the real captures.
pub fn scenarios() -> Vec<Scenario> {
    let mut all =
        vec![Scenario::synthetic(10, REGISTRY_10, Some(|b| small::ToolCall::from_json(b).map(drop))), Scenario::synthetic(100, REGISTRY_100, Some(|b| synthetic::ToolCall::from_json(b).map(drop)))];
    #[cfg(feature = "large")]
    all.push(Scenario::synthetic(1_000, crate::REGISTRY_1000, Some(|b| crate::large::ToolCall::from_json(b).map(drop))));
    all.push(Scenario::synthetic(10_000, &crate::registry_gen::registry_of(10_000).to_string(), None));
    all.push(Scenario::real());
    all
}

/// The 10-tool registry's honest call, checked to fit the plain serde struct.
pub fn floor_call() -> String {
    let registry = read_registry(REGISTRY_10.as_bytes()).expect("registry");
    assert!(floor_matches(&registry), "the plain serde struct has the tool's keys");
    let accept = calls(&registry).remove(0).1;
    assert!(serde_json::from_slice::<TransferCall>(accept.as_bytes()).is_ok());
    accept
}
