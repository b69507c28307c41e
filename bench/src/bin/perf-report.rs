//! Ratios from the last `cargo bench -p toolseal-bench --bench compare` run,
//! all measured in that one run: toolseal / jsonschema baseline, toolseal /
//! serde floor, rejection / acceptance, 100 (and with `--features large` 1,000)
//! tools / 10 tools; plus the size of
//! the generated code. Reads criterion's `target/criterion/*/new/estimates.json`.

use std::path::{Path, PathBuf};

fn estimate(root: &Path, group: &str, function: &str) -> Option<f64> {
    let text = std::fs::read_to_string(root.join(group).join(function).join("new/estimates.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

fn main() {
    // `perf-report --write-registry N FILE`: the N-tool synthetic registry, for scripts/measure_large_registry.sh.
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, n, file] = args.as_slice()
        && flag == "--write-registry"
    {
        let n: usize = n.parse().expect("a tool count");
        std::fs::write(file, serde_json::to_string_pretty(&toolseal_bench::registry_gen::registry_of(n)).expect("JSON")).expect("writable");
        return;
    }
    let root = std::env::var_os("CRITERION_HOME").map(PathBuf::from).unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion"));
    let get = |g: &str, f: &str| estimate(&root, g, f);
    let Some(accept_10) = get("accept_10", "generated") else {
        eprintln!("no measurements under {}: run `cargo bench -p toolseal-bench --bench compare` first", root.display());
        std::process::exit(2);
    };
    println!("Medians of the last `cargo bench -p toolseal-bench --bench compare` run (ns per call; {})\n", root.display());
    println!("{:14} {:>10} {:>10} {:>11} {:>12}", "scenario", "generated", "dynamic", "jsonschema", "serde Value");
    // 1,000 tools only when the bench ran with `--features large`.
    let sizes: Vec<usize> = [10, 100, 1_000].into_iter().filter(|n| get(&format!("accept_{n}"), "generated").is_some()).collect();
    for &size in &sizes {
        for label in ["accept", "reject_h1", "reject_h2", "reject_h3"] {
            let group = format!("{label}_{size}");
            let cell = |f: &str| get(&group, f).map_or("—".to_owned(), |x| format!("{x:.0}"));
            println!("{group:14} {:>10} {:>10} {:>11} {:>12}", cell("generated"), cell("dynamic"), cell("jsonschema"), cell("serde_value"));
        }
    }
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => "—".to_owned(),
    };
    println!("\nRatios (target in brackets):");
    for &size in &sizes {
        let g = format!("accept_{size}");
        println!(
            "  {size:>3} tools, accepted call: jsonschema baseline / generated = {} [≥ 2×]; generated / serde Value floor = {} [≤ 1.3×]; dynamic / jsonschema = {}",
            ratio(get(&g, "jsonschema"), get(&g, "generated")),
            ratio(get(&g, "generated"), get(&g, "serde_value")),
            ratio(get(&g, "dynamic"), get(&g, "jsonschema"))
        );
        let worst = ["reject_h1", "reject_h2", "reject_h3"].iter().filter_map(|l| get(&format!("{l}_{size}"), "generated")).fold(0.0f64, f64::max);
        println!("  {size:>3} tools, slowest rejection / acceptance (generated) = {} [≤ 2×]", ratio(Some(worst), get(&g, "generated")));
    }
    println!("  generated with typed serde structs as the floor (10 tools): generated / serde structs = {}", ratio(Some(accept_10), get("accept_10_floor", "serde_struct")));
    for &size in sizes.iter().filter(|n| **n > 10) {
        let g = format!("accept_{size}");
        println!(
            "  {size} tools / 10 tools per accepted call: generated = {} [≤ 1.3×], dynamic = {}",
            ratio(get(&g, "generated"), Some(accept_10)),
            ratio(get(&g, "dynamic"), get("accept_10", "dynamic"))
        );
    }
    println!(
        "  dynamic resolver, 1,000 / 10 tools = {}, 10,000 / 10 tools = {}",
        ratio(get("dynamic_scaling", "1000"), get("dynamic_scaling", "10")),
        ratio(get("dynamic_scaling", "10000"), get("dynamic_scaling", "10"))
    );
    let lines = |code: &str| format!("{} lines ({} KiB)", code.lines().count(), code.len() / 1024);
    let small = include_str!(concat!(env!("OUT_DIR"), "/toolseal/small.rs"));
    let single = include_str!(concat!(env!("OUT_DIR"), "/toolseal/single.rs"));
    print!("\nGenerated code: 10 tools = {}, 100 tools = {}", lines(small), lines(single));
    #[cfg(feature = "large")]
    print!(", 1,000 tools = {}", lines(include_str!(concat!(env!("OUT_DIR"), "/toolseal/large.rs"))));
    #[cfg(not(feature = "large"))]
    print!(" (1,000 tools: `--features large`; build time: scripts/measure_large_registry.sh)");
    println!(".");
}
