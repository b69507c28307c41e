//! The contract file: what `#[toolseal::tool]` checks implementations against.
//! Written by `toolseal-build`, read by `toolseal-macros`; not a public API.
//!
//! `Config::compile` writes `<module>.contract.json` beside `<module>.rs`. It
//! names every tool, its generated types and each argument's Rust field, and
//! for each the [`Check`] the macro emits where a tool is implemented: a trait
//! implemented by exactly the generated type, whose `#[diagnostic::on_unimplemented]`
//! message reports a type that differs from the registry. Nothing is emitted for
//! a tool no function implements.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The module name used for a registry added with `toolseal_build::Config::registry` (not `registry_as`).
pub const DEFAULT_MODULE: &str = "registry";

/// The file name of a module's contract, beside its generated source.
pub fn file_name(module: &str) -> String {
    format!("{module}.contract.json")
}

/// Why a module's contract cannot be read; each message names what fixes it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ContractError {
    /// The crate has no build script, and `TOOLSEAL_CONTRACTS` is not set.
    #[error(
        "no registry contract for `{module}`: this crate has no build script (OUT_DIR is not set); \
         add one calling `toolseal_build::Config::new().registry_as(\"<file>\", \"{module}\").compile()`, \
         or set TOOLSEAL_CONTRACTS to the directory holding `{module}.contract.json`"
    )]
    NoBuildScript {
        /// The module the contract was looked for.
        module: String,
    },
    /// The file is not there (or cannot be read): no registry was compiled as this module.
    #[error(
        "no registry contract for `{module}`: {place}/{module}.contract.json cannot be read ({kind}); the build script must compile a registry \
         with `.registry_as(<file>, \"{module}\")` (`.registry(<file>)` is the module `registry`)"
    )]
    Unreadable {
        /// The module the contract was looked for.
        module: String,
        /// Where it was looked for: `$TOOLSEAL_CONTRACTS` or `$OUT_DIR/toolseal`.
        place: &'static str,
        /// Why it could not be read.
        kind: std::io::ErrorKind,
    },
    /// The file is not a contract this version reads (written by another version).
    #[error("{} is not a toolseal contract ({source}); rebuild to regenerate it", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What the reader found.
        source: serde_json::Error,
    },
}

/// Where the contract of `module` lives: `$TOOLSEAL_CONTRACTS/<module>.contract.json`
/// when that variable is set (crates without a build script, trybuild tests),
/// else `$OUT_DIR/toolseal/<module>.contract.json`.
pub fn locate(module: &str) -> Result<PathBuf, ContractError> {
    let dir = match (std::env::var_os("TOOLSEAL_CONTRACTS"), std::env::var_os("OUT_DIR")) {
        (Some(dir), _) => PathBuf::from(dir),
        (None, Some(out)) => Path::new(&out).join("toolseal"),
        (None, None) => return Err(ContractError::NoBuildScript { module: module.to_owned() }),
    };
    Ok(dir.join(file_name(module)))
}

/// Reads the contract of `module` (see [`locate`]).
pub fn load(module: &str) -> Result<Contract, ContractError> {
    let path = locate(module)?;
    parse(&path, &read_text(module, &path)?)
}

/// The text of the contract of `module` at `path` (as [`locate`] gives it).
pub fn read_text(module: &str, path: &Path) -> Result<String, ContractError> {
    let place = if std::env::var_os("TOOLSEAL_CONTRACTS").is_some() { "$TOOLSEAL_CONTRACTS" } else { "$OUT_DIR/toolseal" };
    std::fs::read_to_string(path).map_err(|e| ContractError::Unreadable { module: module.to_owned(), place, kind: e.kind() })
}

/// Parses the contract `text` read from `path`.
pub fn parse(path: &Path, text: &str) -> Result<Contract, ContractError> {
    serde_json::from_str(text).map_err(|source| ContractError::Invalid { path: path.to_owned(), source })
}

/// Everything the `#[tool]` macros need to know about one generated registry module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contract {
    /// The registry file, as the build script named it.
    pub registry: String,
    /// The module name (`include_registry!("<module>")`).
    pub module: String,
    /// The tools, in registry order.
    pub tools: Vec<ContractTool>,
}

/// One tool of a contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContractTool {
    /// The tool's name in the registry.
    pub name: String,
    /// Its `ToolCall` variant.
    pub variant: String,
    /// Its argument type (`…Args`).
    pub args: String,
    /// The check of the argument type.
    pub args_check: Check,
    /// Its arguments as struct fields; `None` when the arguments are not a
    /// closed object with declared properties (take the whole argument type).
    pub fields: Option<Vec<ContractField>>,
    /// The output type and its check, when the tool declares an `outputSchema`.
    pub output: Option<ContractOutput>,
}

/// One declared argument: a field of the argument struct.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContractField {
    /// The JSON key.
    pub key: String,
    /// The Rust field name (`r#type` for keywords).
    pub rust: String,
    /// The field's type, as written for people (`Option<TransferFundsMemo>`).
    pub ty: String,
    /// Whether the field is an `Option` (an optional property without a default).
    pub optional: bool,
    /// Whether the registry requires the key.
    pub required: bool,
    /// The check of the field's type.
    pub check: Check,
}

/// A tool's output type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContractOutput {
    /// The generated output type (`…Output`).
    pub ty: String,
    /// The check of the output type.
    pub check: Check,
}

/// A check of one type against the registry: the trait `#[toolseal::tool]` emits
/// beside an implementation, implemented by exactly the type the registry asks for,
/// and the diagnostic that reports any other type in the registry's words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// The trait's name (`TransferFunds__f0`).
    pub name: String,
    /// The expected type as Rust tokens; `self::` stands for the generated module
    /// (`::core::option::Option<self::TransferFundsMemo>`).
    pub ty: String,
    /// `on_unimplemented`'s message.
    pub message: String,
    /// `on_unimplemented`'s label.
    pub label: String,
    /// `on_unimplemented`'s note.
    pub note: String,
}

impl Contract {
    /// The tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&ContractTool> {
        self.tools.iter().find(|t| t.name == name)
    }
}
