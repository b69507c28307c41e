//! Shared by the command's tests: the repository root, where the test servers,
//! registries and manifests live (the commands run there).

use std::path::PathBuf;

/// The repository root.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}
