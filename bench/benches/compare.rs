//! Side by side, in the same run, on the same calls: the generated enum, the
//! dynamic resolver, the runtime alternative users pick today (serde_json →
//! Value, a HashMap of precompiled `jsonschema` validators with
//! `additionalProperties: false` written in), and the floor (serde alone).
//! `cargo bench -p toolseal-bench --bench compare`, then
//! `cargo run --release -p toolseal-bench --bin perf-report` for the ratios.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use serde::Deserialize;
use serde_json::Value;
use toolseal::runtime::dynamic::DynamicRegistry;
use toolseal::runtime::probe::{probes, Expect};
use toolseal::runtime::registry::{read_registry, Registry};
use toolseal::runtime::schema::{closed_world, compile_tool_schema, CompileOptions};
use toolseal::{Class, Options};
use toolseal_bench::registry_gen::registry_of;
use toolseal_bench::{small, synthetic, REGISTRY_10, REGISTRY_100};

/// The tool every scenario calls (in every registry size).
const TOOL: &str = "payments_transfer";

/// Honest, H1, H2 and H3 calls of `TOOL`, from its own probes.
fn calls(registry: &Registry) -> Vec<(&'static str, String)> {
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

/// What users write today: parse to a Value, look the tool up, validate with a precompiled validator.
struct JsonSchemaBaseline {
    validators: HashMap<String, jsonschema::Validator>,
}

impl JsonSchemaBaseline {
    fn new(registry: &Registry) -> JsonSchemaBaseline {
        let validators = registry.tools.iter().map(|t| (t.name.clone(), jsonschema::options().should_validate_formats(true).build(&closed_world(&t.input_schema).to_value()).expect("validator"))).collect();
        JsonSchemaBaseline { validators }
    }

    fn resolve(&self, bytes: &[u8]) -> Result<Value, String> {
        let call: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        let name = call["name"].as_str().ok_or("no name")?;
        let validator = self.validators.get(name).ok_or_else(|| format!("unknown tool {name}"))?;
        validator.validate(&call["arguments"]).map_err(|e| e.to_string())?;
        Ok(call)
    }
}

fn scenario(c: &mut Criterion, size: usize, registry_json: &str, generated: fn(&[u8]) -> bool) {
    let registry = read_registry(registry_json.as_bytes()).expect("registry");
    let dynamic = DynamicRegistry::new(&registry, &CompileOptions::default()).expect("dynamic");
    let baseline = JsonSchemaBaseline::new(&registry);
    for (label, call) in calls(&registry) {
        let expect_ok = label == "accept";
        assert_eq!(generated(call.as_bytes()), expect_ok, "{label}");
        assert_eq!(dynamic.resolve(call.as_bytes(), &Options::strict()).is_ok(), expect_ok, "{label}");
        assert_eq!(baseline.resolve(call.as_bytes()).is_ok(), expect_ok, "{label}: the baseline agrees");
        let mut group = c.benchmark_group(format!("{label}_{size}"));
        group.bench_function("generated", |b| b.iter(|| black_box(generated(black_box(call.as_bytes())))));
        group.bench_function("dynamic", |b| b.iter(|| black_box(dynamic.resolve(black_box(call.as_bytes()), &Options::strict()).is_ok())));
        group.bench_function("jsonschema", |b| b.iter(|| black_box(baseline.resolve(black_box(call.as_bytes())).is_ok())));
        group.bench_function("serde_value", |b| b.iter(|| black_box(serde_json::from_slice::<Value>(black_box(call.as_bytes())).is_ok())));
        group.finish();
    }
}

/// The floor with types: plain serde structs for the 10 tools' `payments_transfer`, no validation.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Transfer {
    pay_id: String,
    #[serde(flatten)]
    rest: HashMap<String, Value>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Envelope {
    name: String,
    arguments: Transfer,
}

fn sized(c: &mut Criterion) {
    scenario(c, 10, REGISTRY_10, |b| small::ToolCall::from_json(b).is_ok());
    scenario(c, 100, REGISTRY_100, |b| synthetic::ToolCall::from_json(b).is_ok());
    let registry = read_registry(REGISTRY_10.as_bytes()).expect("registry");
    let accept = calls(&registry).remove(0).1;
    let mut group = c.benchmark_group("accept_10_floor");
    group.bench_function("serde_struct", |b| b.iter(|| black_box(serde_json::from_slice::<Envelope>(black_box(accept.as_bytes())).is_ok())));
    group.finish();
}

fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("dynamic_scaling");
    for n in [10usize, 100, 1_000, 10_000] {
        let registry = read_registry(registry_of(n).to_string().as_bytes()).expect("registry");
        let dynamic = DynamicRegistry::new(&registry, &CompileOptions::default()).expect("dynamic");
        let accept = calls(&registry).remove(0).1;
        assert!(dynamic.resolve(accept.as_bytes(), &Options::strict()).is_ok());
        group.bench_function(n.to_string(), |b| b.iter(|| black_box(dynamic.resolve(black_box(accept.as_bytes()), &Options::strict()).is_ok())));
    }
    group.finish();
}

criterion_group! {
    name = compare;
    config = Criterion::default().warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1)).sample_size(30);
    targets = sized, scaling
}
criterion_main!(compare);
