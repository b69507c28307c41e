//! Ratios measured side by side: every round times each contestant on its
//! calls (a batch of calls each, in an order that rotates every round), so a
//! slow moment of a noisy machine hits all of them alike; each ratio is taken
//! within a round and the median over the rounds is reported, with the spread
//! (the 10th and 90th percentiles). The contestants are the criterion
//! comparison's (`benches/compare.rs`), on the same calls.
//!
//! The scenarios: the synthetic registry at 10 and 100 tools with their
//! generated enums (with `--features large` at 1,000 too), at 10,000 tools
//! through the dynamic resolver, and the real captures (`real`: every tool of
//! the nine captured MCP listings, its honest call, every H1 probe and its first
//! H2 and H3 probe, cycled).
//!
//! `cargo run --release -p toolseal-bench --bin paired [-- ROUNDS [FILTER]]` (default 200
//! rounds; FILTER keeps the contestants whose label contains it, for a profiler).

use std::hint::black_box;
use std::rc::Rc;
use std::time::Instant;

use toolseal_bench::contestants::{Kind, Scenario, TransferCall, floor_call, scenarios};

/// Calls per timed batch.
const BATCH: usize = 1_000;

/// One contestant: a label and the `i`-th call of its batch, which says whether it accepted.
type Contestant = (String, Box<dyn Fn(usize) -> bool>);

fn contestants(scenarios: Vec<Scenario>) -> Vec<Contestant> {
    let mut all: Vec<Contestant> = Vec::new();
    for scenario in scenarios {
        let scenario = Rc::new(scenario);
        for (label, calls) in &scenario.calls {
            for kind in scenario.kinds(label) {
                let (s, calls) = (scenario.clone(), calls.clone());
                all.push((format!("{label}_{}/{}", scenario.name, kind.as_str()), Box::new(move |i| s.accepts(&calls, kind, i))));
            }
        }
    }
    let accept = floor_call();
    all.push(("accept_10/serde_struct".to_owned(), Box::new(move |_| serde_json::from_slice::<TransferCall>(accept.as_bytes()).is_ok())));
    all
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let rounds: usize = std::env::args().nth(1).map(|r| r.parse().expect("ROUNDS is a number")).unwrap_or(200);
    // `paired ROUNDS FILTER`: only the contestants whose label contains FILTER (for a profiler).
    let filter = std::env::args().nth(2).unwrap_or_default();
    let scenarios = scenarios();
    let names: Vec<(String, bool)> = scenarios.iter().map(|s| (s.name.clone(), s.kinds("accept").contains(&Kind::Generated))).collect();
    let mut all = contestants(scenarios);
    all.retain(|(label, _)| label.contains(&filter));
    let mut times = vec![Vec::with_capacity(rounds); all.len()];
    let start = Instant::now();
    for round in 0..rounds {
        for k in 0..all.len() {
            let i = (k + round) % all.len();
            let f = &all[i].1;
            let t = Instant::now();
            for j in 0..BATCH {
                black_box(f(j));
            }
            times[i].push(t.elapsed().as_nanos() as f64 / BATCH as f64);
        }
    }
    let index = |label: &str| all.iter().position(|(l, _)| l == label);
    println!("Paired measurement: {rounds} rounds × {BATCH} calls per contestant, {:.1} s, {} cores", start.elapsed().as_secs_f64(), std::thread::available_parallelism().map_or(1, |n| n.get()));
    let features = if cfg!(feature = "large") { " --features large" } else { "" };
    println!("`cargo run --release -p toolseal-bench{features} --bin paired -- {rounds}`\n");
    println!("{:34} {:>10} {:>10} {:>10}", "contestant", "median ns", "p10", "p90");
    for (i, (label, _)) in all.iter().enumerate() {
        let mut t = times[i].clone();
        t.sort_by(f64::total_cmp);
        println!("{label:34} {:>10.0} {:>10.0} {:>10.0}", percentile(&t, 0.5), percentile(&t, 0.1), percentile(&t, 0.9));
    }
    let ratio = |a: &str, b: &str| {
        let (Some(a), Some(b)) = (index(a), index(b)) else { return "— (filtered out)".to_owned() };
        let mut r: Vec<f64> = (0..rounds).map(|k| times[a][k] / times[b][k]).collect();
        r.sort_by(f64::total_cmp);
        format!("{:.2}× (p10 {:.2}, p90 {:.2})", percentile(&r, 0.5), percentile(&r, 0.1), percentile(&r, 0.9))
    };
    let has = |label: &str| all.iter().any(|(l, _)| l == label);
    println!("\nRatios within a round, median over rounds (issue 17's target in brackets):");
    for (name, generated) in &names {
        let head = format!("  {name:>6}:");
        // The resolver a rejection is compared with: the generated enum where the scenario has one.
        let resolver = if *generated { "generated" } else { "dynamic" };
        if *generated {
            println!("{head} accepted call, jsonschema baseline / generated = {} [≥ 3×]", ratio(&format!("accept_{name}/jsonschema"), &format!("accept_{name}/generated")));
            println!("{head} accepted call, generated / serde Value (parse only) = {}", ratio(&format!("accept_{name}/generated"), &format!("accept_{name}/serde_value")));
        }
        println!("{head} accepted call, jsonschema baseline / dynamic = {} [≥ 1.5×]", ratio(&format!("accept_{name}/jsonschema"), &format!("accept_{name}/dynamic")));
        for class in ["h1", "h2", "h3"] {
            let upper = class.to_uppercase();
            let group = format!("reject_{class}_{name}");
            if has(&format!("{group}/{resolver}")) {
                println!("{head} rejection {upper} / acceptance ({resolver}) = {}", ratio(&format!("{group}/{resolver}"), &format!("accept_{name}/{resolver}")));
                println!(
                    "{head} rejection {upper} with its feedback rendered / acceptance ({resolver}) = {} [≤ 2×]",
                    ratio(&format!("{group}/{resolver}+feedback"), &format!("accept_{name}/{resolver}"))
                );
            }
        }
    }
    println!("      10: accepted call, generated / plain serde structs (no validation) = {} [≤ 1.3×]", ratio("accept_10/generated", "accept_10/serde_struct"));
    for (name, _) in names.iter().filter(|(n, g)| *g && n != "10" && n != "real") {
        println!("  {name:>6}: accepted call (generated) / 10 tools = {} [≤ 1.3×]", ratio(&format!("accept_{name}/generated"), "accept_10/generated"));
    }
    if !names.iter().any(|(n, _)| n == "1000") {
        println!("  (the 1,000-tool generated enum: `cargo run --release -p toolseal-bench --features large --bin paired`)");
    }
}
