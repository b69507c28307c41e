//! Compile-time checks of `#[tool]` / `#[toolset]` against the registry, and of
//! `#[derive(toolseal::Args, toolseal::ToolSet)]`'s attributes:
//! `tests/ui/<category>/*.rs`, one mistake per file, each with the `.stderr`
//! it must produce (toolchain pinned by `rust-toolchain.toml`), and `pass/`
//! for every supported form. Refresh with `TRYBUILD=overwrite cargo test -p toolseal-ui`.
//!
//! Its own crate so that trybuild, which builds the tested crate's dependencies and
//! dev-dependencies again, builds toolseal and six small registries, not the test suite's.

#[test]
fn ui() {
    // The trybuild crate has no build script: point the macros at this crate's
    // contracts. SAFETY: this binary's only test; set before any thread reads the environment.
    unsafe { std::env::set_var("TOOLSEAL_CONTRACTS", toolseal_ui::CONTRACTS) };
    let t = trybuild::TestCases::new();
    t.pass("pass/*.rs");
    for category in ["h1", "h2", "h3", "toolset", "attr", "drift", "typestate", "derive"] {
        t.compile_fail(format!("{category}/*.rs"));
    }
}
