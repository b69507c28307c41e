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
//!         .registry_as("registry/bank.json", "bank")
//!         .compile()
//! }
//! ```
//!
//! Every JSON Schema keyword is enforced: typed Rust where a type says it, the
//! specification validator where none does. A tool whose schema cannot be
//! enforced at all (a reference to a document that is not bundled, a `pattern`
//! with look-around, a malformed keyword) is quarantined: its variant never
//! resolves (every call is refused, class `Quarantined`), a `cargo:warning`
//! names the file, the tool, the JSON pointer and the keyword, and the other
//! tools build. `Config::strict(true)` makes it a build error. Nothing is dropped.

#![deny(missing_docs)]

mod codegen;
mod docs;
mod error;
mod facade;
mod manifest;
mod naming;

use std::path::{Path, PathBuf};

pub use error::Error;
use facade::Facade;
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::{CompileOptions, compile_tool_schema};

use toolseal_runtime::contract;
pub use toolseal_runtime::contract::{Contract, ContractError};

/// The code generated for one registry or deployment manifest.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The module name (`include_registry!("<module>")`).
    pub module: String,
    /// The formatted Rust source, written to `<module>.rs`.
    pub source: String,
    /// What `#[toolseal::tool]` checks implementations against, by registry
    /// name (`<module>`, or `<module>.<server>` in a deployment), each written
    /// to `<name>.contract.json`.
    pub contracts: Vec<(String, Contract)>,
    /// Findings that do not stop the build (shadowing in a deployment, when allowed).
    pub warnings: Vec<String>,
    /// Every file read (the registry, or the manifest and its registries).
    pub inputs: Vec<PathBuf>,
    /// Tools whose schema cannot be enforced: generated as variants that never resolve.
    pub quarantined: Vec<Quarantined>,
}

/// A tool whose schema cannot be enforced, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quarantined {
    /// The registry file.
    pub path: PathBuf,
    /// The tool.
    pub tool: String,
    /// JSON pointer in the file.
    pub pointer: String,
    /// The keyword at fault.
    pub keyword: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Quarantined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: tool `{}` is quarantined, every call to it is refused: at `#{}`, keyword `{}`: {}", self.path.display(), self.tool, self.pointer, self.keyword, self.message)
    }
}

impl From<Quarantined> for Error {
    fn from(q: Quarantined) -> Error {
        Error::Schema { path: q.path, tool: q.tool, pointer: q.pointer, keyword: q.keyword, message: q.message }
    }
}

/// The module name used for a manifest added with `.manifest(..)` (not `.manifest_as(..)`).
pub const DEFAULT_DEPLOYMENT_MODULE: &str = "deployment";

/// The module name of a registry added with `.registry(..)` (not `.registry_as(..)`): `include_registry!()`.
pub const DEFAULT_MODULE: &str = toolseal_runtime::contract::DEFAULT_MODULE;

#[derive(Debug, Clone)]
struct Entry {
    path: PathBuf,
    module: Option<String>,
    manifest: bool,
}

/// Configures code generation, like `prost_build::Config`.
#[derive(Debug, Clone)]
pub struct Config {
    entries: Vec<Entry>,
    out_dir: Option<PathBuf>,
    options: CompileOptions,
    strict: bool,
    toolseal_path: String,
}

impl Default for Config {
    fn default() -> Self {
        Config::new()
    }
}

impl Config {
    /// An empty configuration: format assertion on, output to `$OUT_DIR/toolseal`,
    /// the facade named `::toolseal`.
    pub fn new() -> Config {
        Config { entries: Vec::new(), out_dir: None, options: CompileOptions::default(), strict: false, toolseal_path: "::toolseal".to_owned() }
    }

    /// Adds a registry file (relative paths are relative to the crate root, as in
    /// `build.rs`), generated into the module `registry` (`include_registry!()`).
    pub fn registry(&mut self, path: impl AsRef<Path>) -> &mut Config {
        self.entries.push(Entry { path: path.as_ref().to_owned(), module: None, manifest: false });
        self
    }

    /// Adds a registry file generated into the module `module` (`include_registry!("module")`).
    pub fn registry_as(&mut self, path: impl AsRef<Path>, module: &str) -> &mut Config {
        self.entries.push(Entry { path: path.as_ref().to_owned(), module: Some(module.to_owned()), manifest: false });
        self
    }

    /// Adds a deployment manifest (`toolseal.toml`): several MCP servers with
    /// trust tiers, merged into one `McpCall` enum in the module `deployment`.
    /// Registry paths in it are relative to the manifest.
    pub fn manifest(&mut self, path: impl AsRef<Path>) -> &mut Config {
        self.entries.push(Entry { path: path.as_ref().to_owned(), module: None, manifest: true });
        self
    }

    /// Adds a deployment manifest generated into the module `module`.
    pub fn manifest_as(&mut self, path: impl AsRef<Path>, module: &str) -> &mut Config {
        self.entries.push(Entry { path: path.as_ref().to_owned(), module: Some(module.to_owned()), manifest: true });
        self
    }

    /// Enforces `format` (default `true`). When `false`, `format` is kept as an
    /// annotation and unknown formats are accepted.
    pub fn formats(&mut self, assert: bool) -> &mut Config {
        self.options.assert_formats = assert;
        self
    }

    /// Refuses the build when a tool's schema cannot be enforced (default `false`:
    /// the tool is quarantined, with a `cargo:warning`).
    pub fn strict(&mut self, strict: bool) -> &mut Config {
        self.strict = strict;
        self
    }

    /// Opt-in strictness: a schema without `type` whose keywords all belong to one
    /// type (`minLength` → string) admits only that type (default `false`: the
    /// specification's semantics, other types pass).
    pub fn implied_types(&mut self, implied: bool) -> &mut Config {
        self.options.implied_types = implied;
        self
    }

    /// The path generated code names the `toolseal` crate by (default `::toolseal`),
    /// like prost-build's `prost_path`: for a crate that reaches toolseal through a
    /// re-export rather than a dependency of its own (`::my_sdk::toolseal` where
    /// `my_sdk` has `pub use toolseal;`), or under another name. Every item,
    /// macro and `#[serde(crate = ..)]` of the generated code goes through it;
    /// `include_registry!` is called through it too (`my_sdk::toolseal::include_registry!`).
    /// A path that is not a plain Rust path fails `generate` / `compile` with [`Error::Config`].
    pub fn toolseal_path(&mut self, path: &str) -> &mut Config {
        self.toolseal_path = path.to_owned();
        self
    }

    /// Writes into `dir` instead of `$OUT_DIR/toolseal`.
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Config {
        self.out_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Generates every registry's code without writing anything (snapshot tests use this).
    pub fn generate(&self) -> Result<Vec<Generated>, Error> {
        let facade = Facade::parse(&self.toolseal_path)?;
        let mut out: Vec<Generated> = Vec::new();
        for entry in &self.entries {
            let default = if entry.manifest { DEFAULT_DEPLOYMENT_MODULE } else { DEFAULT_MODULE };
            let module = entry.module.clone().unwrap_or_else(|| default.to_owned());
            let valid = !module.is_empty() && module.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !valid {
                return Err(Error::Config(format!("module name {module:?} must be ASCII letters, digits, `_` or `-`")));
            }
            if out.iter().any(|g| g.module == module) {
                return Err(Error::Config(format!("two registries share the module name {module:?}; give each its own with `.registry_as(path, module)`")));
            }
            if entry.manifest {
                out.push(manifest::generate(&entry.path, &module, &self.options, &facade)?);
            } else {
                let bytes = std::fs::read(&entry.path).map_err(|source| Error::Io { path: entry.path.clone(), source })?;
                out.push(registry_source(&bytes, &entry.path, &module, &self.options, &facade)?);
            }
            if self.strict
                && let Some(q) = out.last().and_then(|g| g.quarantined.first())
            {
                return Err(q.clone().into());
            }
        }
        Ok(out)
    }

    /// Generates and writes every registry and manifest (`<module>.rs` and the
    /// contracts), only where the content changed, printing
    /// `cargo:rerun-if-changed` for every file read and `cargo:warning` for
    /// every warning.
    pub fn compile(&self) -> Result<(), Error> {
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
            for input in g.inputs.iter().filter(|i| !self.entries.iter().any(|e| e.path == **i)) {
                println!("cargo:rerun-if-changed={}", input.display());
            }
            for warning in &g.warnings {
                println!("cargo:warning={warning}");
            }
            for q in &g.quarantined {
                println!("cargo:warning={q} (`Config::strict(true)` makes this an error)");
            }
            write_if_changed(&dir.join(format!("{}.rs", g.module)), &g.source)?;
            for (name, contract) in &g.contracts {
                let path = dir.join(contract::file_name(name));
                let text = match serde_json::to_string_pretty(contract) {
                    Ok(text) => text,
                    Err(source) => return Err(Error::Contract { path, source }),
                };
                write_if_changed(&path, &text)?;
            }
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

/// One registry compiled to tokens, before formatting.
pub(crate) struct RegistryTokens {
    pub(crate) tokens: proc_macro2::TokenStream,
    pub(crate) contract: Contract,
    pub(crate) registry: toolseal_runtime::registry::Registry,
    pub(crate) quarantined: Vec<Quarantined>,
}

/// Reads and compiles one registry; `path` names it in errors and contracts.
pub(crate) fn registry_tokens(bytes: &[u8], path: &Path, module: &str, options: &CompileOptions, facade: &Facade) -> Result<RegistryTokens, Error> {
    let registry = read_registry(bytes).map_err(|source| Error::Registry { path: path.to_owned(), source })?;
    let mut tools = Vec::with_capacity(registry.tools.len());
    let mut quarantined = Vec::new();
    let quarantine = |def: &toolseal_runtime::registry::ToolDef, base: &str, e: toolseal_runtime::schema::SchemaError| Quarantined {
        path: path.to_owned(),
        tool: def.name.clone(),
        pointer: format!("{base}{}", e.pointer),
        keyword: e.keyword,
        message: e.message,
    };
    for def in &registry.tools {
        let output_base = format!("{}/outputSchema", def.pointer);
        let compiled = compile_tool_schema(&def.input_schema, options).map_err(|e| quarantine(def, &def.input_pointer, e)).and_then(|schema| {
            let output = match &def.output_schema {
                Some(s) => Some(compile_tool_schema(s, options).map_err(|e| quarantine(def, &output_base, e))?),
                None => None,
            };
            Ok((schema, output))
        });
        match compiled {
            Ok((schema, output)) => tools.push(codegen::ToolInput { def, schema: Ok(schema), output }),
            Err(q) => {
                let problem = format!("at `#{}`, keyword `{}`: {}", q.pointer, q.keyword, q.message);
                quarantined.push(q);
                tools.push(codegen::ToolInput { def, schema: Err(problem), output: None });
            }
        }
    }
    let (tokens, contract) = codegen::registry(&tools, &shown(path), module, facade);
    drop(tools);
    Ok(RegistryTokens { tokens, contract, registry, quarantined })
}

/// A path as generated code and messages show it (forward slashes).
pub(crate) fn shown(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// Formats generated tokens as a file with the `@generated` header.
pub(crate) fn format_file(tokens: proc_macro2::TokenStream, path: &Path, what: &str) -> Result<String, Error> {
    let file: syn::File = syn::parse2(tokens).map_err(|e| Error::Internal { path: path.to_owned(), message: e.to_string() })?;
    Ok(format!("// @generated by toolseal-build from `{}` ({what}).\n// Do not edit: change the registry and rebuild.\n\n{}", shown(path), prettyplease::unparse(&file)))
}

/// Generates the code for registry text; `path` names it in errors and the header.
/// The code names the facade `::toolseal` ([`Config::toolseal_path`] changes that).
pub fn generate_source(bytes: &[u8], path: &Path, module: &str, options: &CompileOptions) -> Result<Generated, Error> {
    registry_source(bytes, path, module, options, &Facade::default())
}

/// [`generate_source`] with the facade named by `facade`.
fn registry_source(bytes: &[u8], path: &Path, module: &str, options: &CompileOptions, facade: &Facade) -> Result<Generated, Error> {
    let RegistryTokens { tokens, contract, registry, quarantined } = registry_tokens(bytes, path, module, options, facade)?;
    let source = format_file(tokens, path, &format!("{}, {}", registry.format.name(), docs::count(registry.tools.len() as u64, "tool")))?;
    Ok(Generated { module: module.to_owned(), source, contracts: vec![(module.to_owned(), contract)], warnings: Vec::new(), inputs: vec![path.to_owned()], quarantined })
}
