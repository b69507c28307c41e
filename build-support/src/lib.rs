//! Build-script code generation for [toolseal](https://docs.rs/toolseal).
//!
//! Reads tool registries (MCP `tools/list`, OpenAI, Anthropic, Bedrock) and
//! writes, per registry, a sealed `ToolCall` enum with strictly typed argument
//! structs into `$OUT_DIR/toolseal/<module>.rs`, for `toolseal::include_registry!`.
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), toolseal_build::Error> {
//!     toolseal_build::Config::new()
//!         .registry("registry/bank.json")
//!         .module("bank")
//!         .compile()
//! }
//! ```
//!
//! A registry toolseal cannot enforce exactly (an unsupported keyword, a
//! `pattern` with look-around, an unknown `format`) fails the build with the
//! file, the tool, the JSON pointer and the keyword. Nothing is dropped.

#![deny(missing_docs)]

mod codegen;
pub mod contract;
mod error;
mod naming;

use std::path::{Path, PathBuf};

pub use error::Error;
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::{compile_tool_schema, CompileOptions};

pub use contract::Contract;

/// The code generated for one registry.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The module name (`include_registry!("<module>")`).
    pub module: String,
    /// The formatted Rust source, written to `<module>.rs`.
    pub source: String,
    /// What `#[toolseal::tool]` checks implementations against, written to `<module>.contract.json`.
    pub contract: Contract,
}

/// The module name used when `.module(..)` is not given (`include_registry!()`).
pub const DEFAULT_MODULE: &str = "registry";

#[derive(Debug, Clone)]
struct Entry {
    path: PathBuf,
    module: Option<String>,
}

/// Configures code generation, like `prost_build::Config`.
#[derive(Debug, Clone)]
pub struct Config {
    entries: Vec<Entry>,
    out_dir: Option<PathBuf>,
    options: CompileOptions,
}

impl Default for Config {
    fn default() -> Self {
        Config::new()
    }
}

impl Config {
    /// An empty configuration: format assertion on, output to `$OUT_DIR/toolseal`.
    pub fn new() -> Config {
        Config { entries: Vec::new(), out_dir: None, options: CompileOptions::default() }
    }

    /// Adds a registry file (relative paths are relative to the crate root, as in `build.rs`).
    pub fn registry(mut self, path: impl AsRef<Path>) -> Config {
        self.entries.push(Entry { path: path.as_ref().to_owned(), module: None });
        self
    }

    /// Names the module of the registry added last (`include_registry!("name")`).
    /// Without it the module is `registry`.
    pub fn module(mut self, name: &str) -> Config {
        if let Some(last) = self.entries.last_mut() {
            last.module = Some(name.to_owned());
        } else {
            // Reported by `compile`, which can return an error.
            self.entries.push(Entry { path: PathBuf::new(), module: Some(name.to_owned()) });
        }
        self
    }

    /// Enforces `format` (default `true`). When `false`, `format` is kept as an
    /// annotation and unknown formats are accepted.
    pub fn formats(mut self, assert: bool) -> Config {
        self.options.assert_formats = assert;
        self
    }

    /// Writes into `dir` instead of `$OUT_DIR/toolseal`.
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Config {
        self.out_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Generates every registry's code without writing anything (snapshot tests use this).
    pub fn generate(&self) -> Result<Vec<Generated>, Error> {
        let mut out: Vec<Generated> = Vec::new();
        for entry in &self.entries {
            if entry.path.as_os_str().is_empty() {
                return Err(Error::Config("`.module(..)` must follow the `.registry(..)` it names".into()));
            }
            let module = entry.module.clone().unwrap_or_else(|| DEFAULT_MODULE.to_owned());
            let valid = !module.is_empty() && module.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !valid {
                return Err(Error::Config(format!("module name {module:?} must be ASCII letters, digits, `_` or `-`")));
            }
            if out.iter().any(|g| g.module == module) {
                return Err(Error::Config(format!("two registries share the module name {module:?}; give each its own `.module(..)`")));
            }
            let bytes = std::fs::read(&entry.path).map_err(|source| Error::Io { path: entry.path.clone(), source })?;
            out.push(generate_source(&bytes, &entry.path, &module, &self.options)?);
        }
        Ok(out)
    }

    /// Generates and writes every registry (`<module>.rs` and
    /// `<module>.contract.json`), only where the content changed, printing
    /// `cargo:rerun-if-changed` for each registry file.
    pub fn compile(self) -> Result<(), Error> {
        let dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => match std::env::var_os("OUT_DIR") {
                Some(d) => PathBuf::from(d).join("toolseal"),
                None => return Err(Error::Config("OUT_DIR is not set: call `compile` from a build script, or set `.out_dir(..)`".into())),
            },
        };
        for entry in &self.entries {
            println!("cargo:rerun-if-changed={}", entry.path.display());
        }
        let generated = self.generate()?;
        std::fs::create_dir_all(&dir).map_err(|source| Error::Io { path: dir.clone(), source })?;
        for g in generated {
            let contract = serde_json::to_string_pretty(&g.contract).map_err(|e| Error::Internal { path: dir.clone(), message: e.to_string() })?;
            write_if_changed(&dir.join(format!("{}.rs", g.module)), &g.source)?;
            write_if_changed(&dir.join(contract::file_name(&g.module)), &contract)?;
        }
        Ok(())
    }
}

/// Writes `text` unless the file already holds it, so cargo sees no change.
fn write_if_changed(path: &Path, text: &str) -> Result<(), Error> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|source| Error::Io { path: path.to_owned(), source })
}

/// Generates the code for registry text; `path` names it in errors and the header.
pub fn generate_source(bytes: &[u8], path: &Path, module: &str, options: &CompileOptions) -> Result<Generated, Error> {
    let registry = read_registry(bytes).map_err(|source| Error::Registry { path: path.to_owned(), source })?;
    let mut tools = Vec::with_capacity(registry.tools.len());
    for def in &registry.tools {
        let schema = compile_tool_schema(&def.input_schema, options).map_err(|e| Error::schema(path.to_owned(), &def.name, &def.input_pointer, e))?;
        let output = match &def.output_schema {
            Some(s) => Some(compile_tool_schema(s, options).map_err(|e| Error::schema(path.to_owned(), &def.name, &format!("{}/outputSchema", def.pointer), e))?),
            None => None,
        };
        tools.push(codegen::ToolInput { def, schema, output });
    }
    let shown = path.to_string_lossy().replace('\\', "/");
    let (tokens, contract) = codegen::Generator::registry(&tools, &shown, module);
    let file: syn::File = syn::parse2(tokens).map_err(|e| Error::Internal { path: path.to_owned(), message: e.to_string() })?;
    let source = format!(
        "// @generated by toolseal-build from `{shown}` ({}, {} tools).\n// Do not edit: change the registry and rebuild.\n\n{}",
        registry.format.name(),
        registry.tools.len(),
        prettyplease::unparse(&file)
    );
    Ok(Generated { module: module.to_owned(), source, contract })
}
