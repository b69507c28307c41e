//! Side by side, in the same run, on the same calls: the generated enum, the
//! dynamic resolver, the runtime alternative users pick today (serde_json →
//! Value, a HashMap of precompiled `jsonschema` validators with
//! `additionalProperties: false` written in), and the floor (serde alone).
//! `cargo bench -p toolseal-bench --bench compare`, then
//! `cargo run --release -p toolseal-bench --bin perf-report` for the ratios.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use toolseal::Options;
use toolseal_bench::contestants::{TransferCall, calls, floor_call, scenarios};
use toolseal_bench::registry_gen::registry_of;
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::CompileOptions;

fn sized(c: &mut Criterion) {
    for scenario in scenarios() {
        for (label, calls) in &scenario.calls {
            let mut group = c.benchmark_group(format!("{label}_{}", scenario.name));
            for kind in scenario.kinds(label) {
                let mut i = 0;
                group.bench_function(kind.as_str(), |b| {
                    b.iter(|| {
                        i += 1;
                        black_box(scenario.accepts(calls, kind, black_box(i)))
                    })
                });
            }
            group.finish();
        }
    }
    let accept = floor_call();
    let mut group = c.benchmark_group("accept_10_floor");
    group.bench_function("serde_struct", |b| b.iter(|| black_box(serde_json::from_slice::<TransferCall>(black_box(accept.as_bytes())).is_ok())));
    group.finish();
}

fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("dynamic_scaling");
    for n in [10usize, 100, 1_000, 10_000] {
        let registry = read_registry(registry_of(n).to_string().as_bytes()).expect("registry");
        let dynamic = DynamicRegistry::new(&registry, &CompileOptions::default());
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
