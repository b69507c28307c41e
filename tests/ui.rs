//! Compile-time checks of `#[tool]` / `#[toolset]` against the registry:
//! `tests/ui/<category>/*.rs`, one mistake per file, each with the `.stderr`
//! it must produce (toolchain pinned by `rust-toolchain.toml`), and `pass/`
//! for every supported form. Refresh with `TRYBUILD=overwrite cargo test --test ui`.

#[test]
fn ui() {
    // The trybuild crate has no build script: point the macros at the fixtures'
    // contracts. SAFETY: this binary's only test; set before any thread reads the environment.
    unsafe { std::env::set_var("TOOLSEAL_CONTRACTS", toolseal_fixtures::CONTRACTS) };
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    for category in ["h1", "h2", "h3", "toolset", "attr", "drift", "typestate"] {
        t.compile_fail(format!("tests/ui/{category}/*.rs"));
    }
}
