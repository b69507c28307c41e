//! Build errors: each names the registry file and, where it applies, the tool,
//! the JSON pointer in the file and the keyword.

use std::path::PathBuf;

use toolseal_runtime::registry::RegistryError;

/// Why a registry could not be compiled.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The registry file could not be read, or the output not written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a registry (not JSON, unknown shape, duplicate tool, ...).
    #[error("{}: {source}", path.display())]
    Registry {
        /// The registry file.
        path: PathBuf,
        /// What is wrong, with the JSON pointer.
        source: RegistryError,
    },
    /// A tool's schema uses an unsupported or malformed keyword.
    #[error("{}: tool `{tool}`: at `#{pointer}`, keyword `{keyword}`: {message}", path.display())]
    Schema {
        /// The registry file.
        path: PathBuf,
        /// The tool.
        tool: String,
        /// JSON pointer in the file.
        pointer: String,
        /// The keyword at fault.
        keyword: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A deployment manifest (`toolseal.toml`) is malformed or inconsistent.
    #[error("{}: {message}", path.display())]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The build configuration itself is wrong.
    #[error("toolseal-build: {0}")]
    Config(String),
    /// A module's contract (what `#[toolseal::tool]` reads) could not be written as JSON.
    #[error("{}: the registry contract cannot be written: {source}", path.display())]
    Contract {
        /// The contract file.
        path: PathBuf,
        /// The serializer's error.
        source: serde_json::Error,
    },
    /// The generator produced code that does not parse: a toolseal bug.
    #[error("toolseal-build produced invalid Rust for {}: {message} (please report this)", path.display())]
    Internal {
        /// The registry file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
}
