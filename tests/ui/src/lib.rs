//! The registries of the trybuild cases (`tests/ui/<category>/*.rs`), compiled by
//! this crate's build script; the cases reach them as `toolseal_ui::<module>`.

/// `tests/registries/tools/calc.json`, compiled.
pub mod calc {
    toolseal::include_registry!("calc");
}
/// `tests/registries/drift/calc-removed.json`, compiled.
pub mod calc_removed {
    toolseal::include_registry!("calc_removed");
}
/// `tests/registries/drift/calc-renamed.json`, compiled.
pub mod calc_renamed {
    toolseal::include_registry!("calc_renamed");
}
/// `tests/registries/drift/calc-required.json`, compiled.
pub mod calc_required {
    toolseal::include_registry!("calc_required");
}
/// `tests/registries/drift/calc-retyped.json`, compiled.
pub mod calc_retyped {
    toolseal::include_registry!("calc_retyped");
}
/// `examples/transfer_funds/registry/bank.json`, compiled.
pub mod bank {
    toolseal::include_registry!("bank");
}

/// The directory of the contracts this crate's build script wrote, for
/// `TOOLSEAL_CONTRACTS` in the trybuild crates (which have no build script).
pub const CONTRACTS: &str = concat!(env!("OUT_DIR"), "/toolseal");
