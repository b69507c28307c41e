//! Writes the synthetic registries (100 tools for the harness, 10 for the
//! scaling benchmark, and with feature `large` 1,000) and compiles them with
//! toolseal-build.

// Shared with the library, whose users reach these items; here they are private.
#[path = "src/registry_gen.rs"]
#[allow(dead_code, unreachable_pub)]
mod registry_gen;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=src/registry_gen.rs");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    let mut config = toolseal_build::Config::new();
    let mut sizes = vec![(100, "single"), (10, "small")];
    if std::env::var_os("CARGO_FEATURE_LARGE").is_some() {
        sizes.push((1_000, "large"));
    }
    for (tools, module) in sizes {
        let path = out.join(format!("synthetic-{tools}.json"));
        let text = serde_json::to_string_pretty(&registry_gen::registry_of(tools))?;
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, text)?;
        }
        config.registry_as(&path, module);
    }
    config.compile()?;
    Ok(())
}
