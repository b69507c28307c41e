//! The Hallucinated-Tools benchmark harness, as a library: the binary
//! `toolseal-bench` prints its report; the tests assert its figures.

pub mod contestants;
pub mod corpus;
pub mod h5;
pub mod live;
pub mod merged;
pub mod oracle;
pub mod real;
pub mod registry_gen;
pub mod report;
pub mod single;
pub mod verdict;

/// The synthetic 100-tool registry, compiled by this crate's build script.
pub mod synthetic {
    toolseal::include_registry!("single");
}

/// Its first ten tools, compiled alone (the scaling benchmark's small registry).
pub mod small {
    toolseal::include_registry!("small");
}

/// The 1,000-tool synthetic registry (feature `large`).
#[cfg(feature = "large")]
pub mod large {
    toolseal::include_registry!("large");
}

/// The JSON the two registries were compiled from.
pub const REGISTRY_100: &str = include_str!(concat!(env!("OUT_DIR"), "/synthetic-100.json"));
/// See [`REGISTRY_100`].
pub const REGISTRY_10: &str = include_str!(concat!(env!("OUT_DIR"), "/synthetic-10.json"));
/// See [`REGISTRY_100`] (feature `large`).
#[cfg(feature = "large")]
pub const REGISTRY_1000: &str = include_str!(concat!(env!("OUT_DIR"), "/synthetic-1000.json"));

use std::time::Instant;

use indicatif::ProgressBar;
use serde::Serialize;

/// Everything one run measured.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The command that reproduces it.
    pub command: String,
    /// The generators' seed.
    pub seed: u64,
    /// Trials per class.
    pub trials: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Single registry, merged synthetic, merged reference servers, real listings.
    pub tables: Vec<report::Table>,
    /// How the resolver classified each kind of single-registry trial.
    pub resolver_classes: Vec<(String, String, usize)>,
    /// Numbers in strings, counted apart from other H3 violations.
    pub lenient: Lenient,
    /// Real models' calls (AgentDojo), when [`run_live`] was run too.
    pub live: Option<live::Live>,
    /// H5 with and without the also-fits gate, when [`run_live`] was run too.
    pub h5: Option<report::Table>,
}

/// The lenient-mode counts of the H3 trials.
#[derive(Debug, Serialize)]
pub struct Lenient {
    /// H3 trials whose value is a number in a string.
    pub h3_numeric_strings: usize,
    /// Of those, the ones a lenient bridge accepts after coercing.
    pub accepted_by_a_lenient_bridge: usize,
    /// The other H3 trials.
    pub other_h3: usize,
}

/// Runs every experiment with `trials` per class from `seed`, reporting progress on `bar`.
pub fn run(trials: usize, seed: u64, bar: &ProgressBar) -> Report {
    let started = Instant::now();
    let single_trials = single::trials(trials, seed);
    bar.set_length(single_trials.len() as u64);
    bar.set_message("single registry");
    let single = single::run(&single_trials, trials, seed, bar);
    bar.set_position(0);
    bar.set_message("merged MCP (synthetic)");
    let synthetic = merged::run::<toolseal_fixtures::synthetic::McpCall>("synthetic four-server deployment", trials, seed, bar);
    bar.set_message("merged MCP (reference servers)");
    let reference = merged::run::<toolseal_fixtures::real_servers::McpCall>("captured reference servers", trials, seed, bar);
    bar.set_message("real listings");
    let real = real::run(bar);
    Report {
        command: format!("cargo run --release -p toolseal-bench -- --seed {seed} --trials {trials}"),
        seed,
        trials,
        seconds: started.elapsed().as_secs_f64(),
        tables: vec![single.table, synthetic, reference, real],
        resolver_classes: single.classified,
        lenient: Lenient { h3_numeric_strings: single.lenient.0, accepted_by_a_lenient_bridge: single.lenient.1, other_h3: single.lenient.2 },
        live: None,
        h5: None,
    }
}

/// The live table from the AgentDojo extract in `dir` (see [`corpus`]): every call resolved
/// and checked against the oracle; then the H5 table (synthetic trials of `trials` per class
/// from `seed`, the captured listings, the corpus).
pub fn run_live(dir: &std::path::Path, trials: usize, seed: u64, bar: &ProgressBar) -> Result<(live::Live, report::Table), Box<dyn std::error::Error>> {
    bar.set_message("live (AgentDojo)");
    let corpus = corpus::Corpus::load(dir)?;
    let oracle = oracle::Oracle::new(&corpus)?;
    let mut registries = live::Registries::default();
    let live = live::run(&corpus, &mut registries, &oracle);
    bar.set_message("H5 also-fits");
    let synthetic = h5::synthetic(&single::trials(trials, seed));
    let captures = h5::captures();
    let agentdojo = h5::agentdojo(&corpus, &live);
    let table = h5::table(vec![
        (h5::label(&format!("synthetic registry, seed {seed}"), &synthetic), synthetic),
        (h5::label("captured MCP listings", &captures), captures),
        (h5::label("AgentDojo corpus", &agentdojo), agentdojo),
    ]);
    Ok((live, table))
}
