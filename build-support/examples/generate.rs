//! Prints the code toolseal-build generates for a registry, as the build script
//! would write it — to read it, or to count it:
//!
//! ```text
//! cargo run -p toolseal-build --example generate -- REGISTRY.json
//! cargo run -p toolseal-build --example generate -- --lines REGISTRY.json...
//! ```
//!
//! `--lines` prints each registry's line count, tool count and lines per tool instead.

use std::path::Path;
use std::process::ExitCode;

use toolseal_runtime::schema::CompileOptions;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let lines = args.first().is_some_and(|a| a == "--lines");
    if lines {
        args.remove(0);
    }
    if args.is_empty() {
        eprintln!("usage: generate [--lines] REGISTRY...");
        return ExitCode::FAILURE;
    }
    for path in &args {
        let generated = std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| toolseal_build::generate_source(&bytes, Path::new(path), "registry", &CompileOptions::default()).map_err(|e| e.to_string()));
        match generated {
            Ok(g) if lines => {
                let (n, tools) = (g.source.lines().count(), g.contracts.iter().map(|(_, c)| c.tools.len()).sum::<usize>());
                let noun = if tools == 1 { "tool" } else { "tools" };
                println!("{path}: {n} lines, {tools} {noun}, {} lines per tool", n / tools.max(1));
            }
            Ok(g) => print!("{}", g.source),
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
