//! Arbitrary bytes as a registry file: reading it, compiling its schemas and
//! generating code either succeed or return an error — never a panic — and
//! generated code always parses as Rust (toolseal-build checks that itself).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use toolseal_runtime::schema::CompileOptions;

fuzz_target!(|data: &[u8]| {
    let _ = toolseal_build::generate_source(data, Path::new("fuzz.json"), "fuzz", &CompileOptions::default());
});
