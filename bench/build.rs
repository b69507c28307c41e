//! Writes the synthetic 100-tool registry and compiles it with toolseal-build.

#[path = "src/registry_gen.rs"]
#[allow(dead_code)]
mod registry_gen;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=src/registry_gen.rs");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    let path = out.join("synthetic-100.json");
    let text = serde_json::to_string_pretty(&registry_gen::registry())?;
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&path, text)?;
    }
    toolseal_build::Config::new().registry(&path).module("single").compile()?;
    Ok(())
}
