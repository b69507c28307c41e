//! What the performance comparison runs, shared by the criterion bench
//! (`benches/compare.rs`) and the paired-ratio binary (`paired`): one tool's
//! honest, H1, H2 and H3 calls, and the runtime baseline users pick today.

use std::collections::HashMap;

use serde_json::Value;
use toolseal::runtime::dynamic::DynamicRegistry;
use toolseal::runtime::probe::{probes, Expect};
use toolseal::runtime::registry::{read_registry, Registry};
use toolseal::runtime::schema::{closed_world, compile_tool_schema, CompileOptions};
use toolseal::feedback::Feedback;
use toolseal::{Class, Options, Rejection};

use crate::{small, synthetic, REGISTRY_10, REGISTRY_100};

/// The tool every scenario calls (in every registry size).
pub const TOOL: &str = "payments_transfer";

/// Honest, H1, H2 and H3 calls of [`TOOL`], from its own probes, labelled
/// `accept`, `reject_h1`, `reject_h2`, `reject_h3`.
pub fn calls(registry: &Registry) -> Vec<(&'static str, String)> {
    let mut names: Vec<&str> = registry.tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    let tool = registry.tools.iter().find(|t| t.name == TOOL).expect("the tool");
    let doc = compile_tool_schema(&tool.input_schema, &CompileOptions::default()).expect("schema");
    let all = probes(&names, TOOL, &doc);
    let pick = |want: Option<Class>| {
        all.iter()
            .find(|p| match (&p.expect, want) {
                (Expect::Accept, None) => p.label.contains("all keys"),
                (Expect::Reject { class, .. }, Some(w)) => *class == w,
                _ => false,
            })
            .map(|p| p.call.clone())
            .expect("a probe of each kind")
    };
    vec![("accept", pick(None)), ("reject_h1", pick(Some(Class::H1))), ("reject_h2", pick(Some(Class::H2))), ("reject_h3", pick(Some(Class::H3)))]
}

/// What users write today: parse to a `Value`, look the tool up, validate
/// with a precompiled `jsonschema` validator (closed-world: `additionalProperties: false` written in).
pub struct JsonSchemaBaseline {
    validators: HashMap<String, jsonschema::Validator>,
}

impl JsonSchemaBaseline {
    /// One validator per tool of `registry`, formats enforced.
    pub fn new(registry: &Registry) -> JsonSchemaBaseline {
        let validators = registry.tools.iter().map(|t| (t.name.clone(), jsonschema::options().should_validate_formats(true).build(&closed_world(&t.input_schema).to_value()).expect("validator"))).collect();
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

/// One registry size of the comparison: its resolvers and calls, checked to agree.
pub struct Scenario {
    /// Tools in the registry.
    pub size: usize,
    /// The generated enum's `from_json`, without the call it built.
    pub generated: fn(&[u8]) -> Result<(), Rejection>,
    /// The dynamic resolver.
    pub dynamic: DynamicRegistry,
    /// The runtime `jsonschema` baseline.
    pub baseline: JsonSchemaBaseline,
    /// [`calls`] of the registry.
    pub calls: Vec<(&'static str, String)>,
}

impl Scenario {
    /// The registry in `json` (`size` tools) and its generated enum; panics unless
    /// every resolver accepts the honest call and rejects the others.
    pub fn new(size: usize, json: &str, generated: fn(&[u8]) -> Result<(), Rejection>) -> Scenario {
        let registry = read_registry(json.as_bytes()).expect("registry");
        let scenario = Scenario { size, generated, dynamic: DynamicRegistry::new(&registry, &CompileOptions::default()), baseline: JsonSchemaBaseline::new(&registry), calls: calls(&registry) };
        for (label, call) in &scenario.calls {
            let expect = *label == "accept";
            assert_eq!(generated(call.as_bytes()).is_ok(), expect, "{label}_{size}: generated");
            assert_eq!(scenario.dynamic_accepts(call), expect, "{label}_{size}: dynamic");
            assert_eq!(scenario.baseline.resolve(call.as_bytes()).is_ok(), expect, "{label}_{size}: the jsonschema baseline agrees");
        }
        scenario
    }

    /// Whether the generated enum accepts `call`.
    pub fn generated_accepts(&self, call: &[u8]) -> bool {
        (self.generated)(call).is_ok()
    }

    /// Whether the generated enum accepts `call`; a rejection is rendered as the
    /// model reads it (`Feedback`: the line, the closest names, the declared keys),
    /// which is what a host or gateway pays for every hallucinated call.
    pub fn generated_with_feedback(&self, call: &[u8]) -> bool {
        match (self.generated)(call) {
            Ok(()) => true,
            Err(r) => {
                std::hint::black_box(Feedback::from(&r));
                false
            }
        }
    }

    /// Whether the dynamic resolver accepts `call`.
    pub fn dynamic_accepts(&self, call: &str) -> bool {
        self.dynamic.resolve(call.as_bytes(), &Options::strict()).is_ok()
    }
}

/// The sizes compared: the first 10 tools of the synthetic registry, all 100,
/// and with feature `large` the 1,000-tool registry.
pub fn scenarios() -> Vec<Scenario> {
    #[allow(unused_mut)]
    let mut all = vec![Scenario::new(10, REGISTRY_10, |b| small::ToolCall::from_json(b).map(drop)), Scenario::new(100, REGISTRY_100, |b| synthetic::ToolCall::from_json(b).map(drop))];
    #[cfg(feature = "large")]
    all.push(Scenario::new(1_000, crate::REGISTRY_1000, |b| crate::large::ToolCall::from_json(b).map(drop)));
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
