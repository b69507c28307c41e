//! Ratios measured side by side: every round times each contestant on its
//! call (a batch of calls each, in an order that rotates every round), so a
//! slow moment of a noisy machine hits all of them alike; each ratio is taken
//! within a round and the median over the rounds is reported, with the spread
//! (the 10th and 90th percentiles). The contestants are the criterion
//! comparison's (`benches/compare.rs`), on the same calls.
//!
//! `cargo run --release -p toolseal-bench --bin paired [-- ROUNDS]` (default 200);
//! with `--features large` the 1,000-tool generated enum is compared too.

use std::hint::black_box;
use std::rc::Rc;
use std::time::Instant;

use serde_json::Value;
use toolseal_bench::contestants::{floor_call, scenarios, Scenario, TransferCall};

/// Calls per timed batch.
const BATCH: usize = 1_000;

/// One contestant: a label and a call that says whether it accepted.
type Contestant = (String, Box<dyn Fn() -> bool>);

fn contestants(scenarios: Vec<Scenario>) -> Vec<Contestant> {
    let mut all: Vec<Contestant> = Vec::new();
    for scenario in scenarios {
        let scenario = Rc::new(scenario);
        for (label, call) in &scenario.calls {
            let group = format!("{label}_{}", scenario.size);
            let (c, s) = (call.clone(), scenario.clone());
            all.push((format!("{group}/generated"), Box::new(move || s.generated_accepts(c.as_bytes()))));
            if *label != "accept" {
                let (c, s) = (call.clone(), scenario.clone());
                all.push((format!("{group}/generated+feedback"), Box::new(move || s.generated_with_feedback(c.as_bytes()))));
            }
            let (c, s) = (call.clone(), scenario.clone());
            all.push((format!("{group}/dynamic"), Box::new(move || s.dynamic_accepts(&c))));
            let (c, s) = (call.clone(), scenario.clone());
            all.push((format!("{group}/jsonschema"), Box::new(move || s.baseline.resolve(c.as_bytes()).is_ok())));
            if *label == "accept" {
                let c = call.clone();
                all.push((format!("{group}/serde_value"), Box::new(move || serde_json::from_slice::<Value>(c.as_bytes()).is_ok())));
            }
        }
    }
    let accept = floor_call();
    all.push(("accept_10/serde_struct".to_owned(), Box::new(move || serde_json::from_slice::<TransferCall>(accept.as_bytes()).is_ok())));
    all
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let rounds: usize = std::env::args().nth(1).map(|r| r.parse().expect("ROUNDS is a number")).unwrap_or(200);
    let scenarios = scenarios();
    let sizes: Vec<usize> = scenarios.iter().map(|s| s.size).collect();
    let all = contestants(scenarios);
    let mut times = vec![Vec::with_capacity(rounds); all.len()];
    let start = Instant::now();
    for round in 0..rounds {
        for k in 0..all.len() {
            let i = (k + round) % all.len();
            let f = &all[i].1;
            let t = Instant::now();
            for _ in 0..BATCH {
                black_box(f());
            }
            times[i].push(t.elapsed().as_nanos() as f64 / BATCH as f64);
        }
    }
    let index = |label: &str| all.iter().position(|(l, _)| l == label).unwrap_or_else(|| panic!("no contestant {label}"));
    println!("Paired measurement: {rounds} rounds × {BATCH} calls per contestant, {:.1} s, {} cores", start.elapsed().as_secs_f64(), std::thread::available_parallelism().map_or(1, |n| n.get()));
    let features = if cfg!(feature = "large") { " --features large" } else { "" };
    println!("`cargo run --release -p toolseal-bench{features} --bin paired -- {rounds}`\n");
    println!("{:28} {:>10} {:>10} {:>10}", "contestant", "median ns", "p10", "p90");
    for (i, (label, _)) in all.iter().enumerate() {
        let mut t = times[i].clone();
        t.sort_by(f64::total_cmp);
        println!("{label:28} {:>10.0} {:>10.0} {:>10.0}", percentile(&t, 0.5), percentile(&t, 0.1), percentile(&t, 0.9));
    }
    let ratio = |a: &str, b: &str| {
        let (a, b) = (index(a), index(b));
        let mut r: Vec<f64> = (0..rounds).map(|k| times[a][k] / times[b][k]).collect();
        r.sort_by(f64::total_cmp);
        format!("{:.2}× (p10 {:.2}, p90 {:.2})", percentile(&r, 0.5), percentile(&r, 0.1), percentile(&r, 0.9))
    };
    println!("\nRatios within a round, median over rounds (target in brackets):");
    for &size in &sizes {
        println!("  {size:>3} tools, accepted call: jsonschema baseline / generated = {} [≥ 2×]", ratio(&format!("accept_{size}/jsonschema"), &format!("accept_{size}/generated")));
        println!("  {size:>3} tools, accepted call: generated / serde Value floor = {} [≤ 1.3×]", ratio(&format!("accept_{size}/generated"), &format!("accept_{size}/serde_value")));
        for class in ["h1", "h2", "h3"] {
            println!("  {size:>3} tools, rejection {} / acceptance (generated) = {} [≤ 2×]", class.to_uppercase(), ratio(&format!("reject_{class}_{size}/generated"), &format!("accept_{size}/generated")));
            println!("  {size:>3} tools, rejection {} with its feedback rendered / acceptance (generated) = {} [≤ 2×]", class.to_uppercase(), ratio(&format!("reject_{class}_{size}/generated+feedback"), &format!("accept_{size}/generated")));
        }
        println!("  {size:>3} tools, accepted call: dynamic / jsonschema = {}", ratio(&format!("accept_{size}/dynamic"), &format!("accept_{size}/jsonschema")));
    }
    println!("   10 tools, accepted call: generated / plain serde structs (no validation) = {}", ratio("accept_10/generated", "accept_10/serde_struct"));
    for &size in sizes.iter().filter(|s| **s > 10) {
        println!("  {size} tools / 10 tools, accepted call (generated) = {} [≤ 1.3×]", ratio(&format!("accept_{size}/generated"), "accept_10/generated"));
    }
    if !sizes.contains(&1_000) {
        println!("  (the 1,000-tool generated enum: `cargo run --release -p toolseal-bench --features large --bin paired`)");
    }
}
