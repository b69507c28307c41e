//! The Hallucinated-Tools benchmark: seeded, offline, reproducible.
//!
//! `cargo run --release -p toolseal-bench -- [--seed N] [--trials N] [--json]`
//! prints the tables and writes them as JSON and Markdown under
//! `target/toolseal-bench/`.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Parser)]
#[command(about = "H1-H5 through five pipelines and M1-M5 through three MCP hosts, on synthetic and real registries")]
struct Args {
    /// Seed of the trial generators.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Trials per class.
    #[arg(long, default_value_t = 400)]
    trials: usize,
    /// Print the report as JSON instead of tables.
    #[arg(long)]
    json: bool,
    /// The AgentDojo extract the live table reads.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/agentdojo"))]
    corpus: PathBuf,
    /// Where to write report.json and report.md.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/toolseal-bench"))]
    out: PathBuf,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    if args.trials == 0 {
        return Err("--trials must be at least 1".into());
    }
    let bar = if args.json || !std::io::stderr().is_terminal() { ProgressBar::hidden() } else { ProgressBar::new(0) };
    bar.set_style(ProgressStyle::with_template("{msg:32} [{bar:40}] {pos}/{len}").unwrap_or_else(|_| ProgressStyle::default_bar()));
    let mut report = toolseal_bench::run(args.trials, args.seed, &bar);
    let started = std::time::Instant::now();
    let (live, h5) = toolseal_bench::run_live(&args.corpus, args.trials, args.seed, &bar)?;
    report.live = Some(live);
    report.h5 = Some(h5);
    let live_seconds = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let command = report.command.clone();
    std::fs::create_dir_all(&args.out)?;
    std::fs::write(args.out.join("report.json"), serde_json::to_string_pretty(&report)?)?;
    let mut markdown = format!("# toolseal benchmark\n\n`{command}` ({:.1} s)\n\n", report.seconds);
    for table in &report.tables {
        markdown.push_str(&table.markdown());
        markdown.push('\n');
    }
    if let Some(live) = &report.live {
        markdown.push_str(&live.table.markdown());
        markdown.push_str(&format!("\n```text\n{}```\n", live_lines(live)));
    }
    if let Some(h5) = &report.h5 {
        markdown.push('\n');
        markdown.push_str(&h5.markdown());
    }
    std::fs::write(args.out.join("report.md"), &markdown)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!("toolseal benchmark — reproduce with: {command}\n");
    for table in &report.tables {
        println!("{}", table.text());
    }
    println!("How the resolver classified the single-registry trials (trial kind: class × count):");
    let mut line = String::new();
    for (kind, class, n) in &report.resolver_classes {
        line.push_str(&format!("  {kind}: {class} × {n}"));
    }
    println!("{line}\n");
    println!(
        "Lenient mode: of the H3 trials, {} are numbers in strings (a lenient bridge coerces and accepts {} of them); {} are other H3 violations. Counted apart, as the study asks.\n",
        report.lenient.h3_numeric_strings, report.lenient.accepted_by_a_lenient_bridge, report.lenient.other_h3
    );
    if let Some(live) = &report.live {
        println!("{}", live.table.text());
        println!("{}", live_lines(live));
    }
    if let Some(h5) = &report.h5 {
        println!("{}", h5.text());
    }
    println!("Live and H5 tables: {live_seconds:.2} s (corpus read, every call resolved and checked by the oracle, H5 trials).\n");
    println!("Ran in {:.2} s. Report: {}, {}", report.seconds + live_seconds, args.out.join("report.md").display(), args.out.join("report.json").display());
    Ok(())
}

/// The live table's examples and the oracle's agreement, as text.
fn live_lines(live: &toolseal_bench::live::Live) -> String {
    let mut out = String::from("Commonest examples per class (count):\n");
    for (class, list) in &live.examples {
        out.push_str(&format!("  {class}:\n"));
        for (text, n) in list {
            out.push_str(&format!("    {n:>6}  {text}\n"));
        }
    }
    out.push_str(&format!("Oracle (jsonschema, closed world written out): {} of {} calls checked agree, {} disagree\n", live.oracle.agreed, live.oracle.checked, live.oracle.disagreed()));
    for d in &live.oracle.disagreements {
        out.push_str(&format!("  disagree: {} {} toolseal {} oracle accepts {}\n", d.run, d.call, d.toolseal, d.oracle_accepts));
    }
    out
}
