//! Compiles the registries the UI cases name (`registry = "calc"`, …), one module
//! each, with `toolseal_build::Config`, as a user's build script does.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut config = toolseal_build::Config::new();
    for (file, module) in [
        ("../registries/tools/calc.json", "calc"),
        ("../registries/drift/calc-removed.json", "calc_removed"),
        ("../registries/drift/calc-renamed.json", "calc_renamed"),
        ("../registries/drift/calc-required.json", "calc_required"),
        ("../registries/drift/calc-retyped.json", "calc_retyped"),
        ("../../examples/transfer_funds/registry/bank.json", "bank"),
    ] {
        config.registry_as(file, module);
    }
    config.compile()?;
    Ok(())
}
