//! Resolution cost side by side, in the same run: an accepted call against each
//! rejection class, for the generated enum and the dynamic resolver.
//!
//! `cargo bench --bench resolve`; the README reports the last figures.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use toolseal::Options;
use toolseal_fixtures::bank::ToolCall;
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::CompileOptions;

const CALLS: &[(&str, &str)] = &[
    ("accept", r#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":25.5,"currency":"USD","memo":"rent for May"}}"#),
    ("reject_h1", r#"{"name":"transfer_fund","arguments":{"recipient_id":"acct-7","amount":25.5,"currency":"USD","memo":"rent for May"}}"#),
    ("reject_h2", r#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":25.5,"currency":"USD","memo":"rent for May","override":true}}"#),
    ("reject_h3", r#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":"all of it","currency":"USD","memo":"rent for May"}}"#),
];

fn generated(c: &mut Criterion) {
    let mut group = c.benchmark_group("generated");
    for (label, call) in CALLS {
        group.bench_function(*label, |b| b.iter(|| black_box(ToolCall::from_json(black_box(call.as_bytes())))));
    }
    group.finish();
}

fn dynamic(c: &mut Criterion) {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/transfer_funds/registry/bank.json")).expect("bank registry");
    let registry = DynamicRegistry::new(&read_registry(&bytes).expect("reads"), &CompileOptions::default());
    let mut group = c.benchmark_group("dynamic");
    for (label, call) in CALLS {
        group.bench_function(*label, |b| b.iter(|| black_box(registry.resolve(black_box(call.as_bytes()), &Options::strict()))));
    }
    group.finish();
}

fn feedback(c: &mut Criterion) {
    let rejection = ToolCall::from_json(CALLS[1].1.as_bytes()).expect_err("H1");
    c.bench_function("feedback/h1_display_with_suggestions", |b| b.iter_batched(|| rejection.clone(), |r| black_box(r.to_string()), BatchSize::SmallInput));
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = generated, dynamic, feedback
}
criterion_main!(benches);
