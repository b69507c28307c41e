//! Deployment manifests: several MCP servers, each with a trust tier and a
//! registry, merged into one module holding a sealed `ToolCall` per server
//! and an `McpCall` enum whose every value names exactly one `(server, tool)`.
//! The manifest is read by the runtime ([`read_manifest`]); this module generates its code.

use std::path::Path;

use toolseal_runtime::mcp::manifest::{ManifestError, OnShadowing, read_manifest};
use toolseal_runtime::schema::CompileOptions;

use crate::codegen::deployment;
use crate::docs::count;
use crate::facade::Facade;
use crate::{Error, Generated, format_file, registry_tokens};

impl From<ManifestError> for Error {
    fn from(e: ManifestError) -> Error {
        match e {
            ManifestError::Io { path, source } => Error::Io { path, source },
            ManifestError::Registry { path, source } => Error::Registry { path, source },
            ManifestError::Invalid { path, message } => Error::Manifest { path, message },
            other => Error::Manifest { path: std::path::PathBuf::new(), message: other.to_string() },
        }
    }
}

/// Generates the deployment module for the manifest at `path`.
pub(crate) fn generate(path: &Path, module: &str, options: &CompileOptions, facade: &Facade) -> Result<Generated, Error> {
    let deployment = read_manifest(path)?;
    let mut inputs = vec![path.to_owned()];
    let mut modules = Vec::new();
    let mut contracts = Vec::new();
    let mut quarantined = Vec::new();
    for server in &deployment.servers {
        let contract_name = format!("{module}.{}", server.name);
        let compiled = registry_tokens(&server.registry_bytes, &server.registry_path, &contract_name, options, facade)?;
        modules.push(compiled.tokens);
        quarantined.extend(compiled.quarantined);
        contracts.push((contract_name, compiled.contract));
        inputs.push(server.registry_path.clone());
    }
    let catalog = deployment.catalog(path)?;
    let pins = &deployment.pins;
    let mut warnings = Vec::new();
    for s in catalog.shadowing() {
        let line = format!(
            "{}: tool {:?} of {} is shadowed by lower-tier {}; flat calls to it are rejected (M3), qualified calls are not",
            crate::shown(path),
            s.name,
            s.higher.join(", "),
            s.lower.join(", ")
        );
        if deployment.shadowing == OnShadowing::Error {
            return Err(Error::Manifest { path: path.to_owned(), message: format!("{line} (shadowing = \"error\")") });
        }
        warnings.push(line);
    }
    let mut qualified: Vec<String> = catalog.routes().map(|r| catalog.qualified(r).to_owned()).collect();
    qualified.sort_unstable();
    let counts: Vec<usize> = catalog.servers().iter().map(|s| s.tools.len()).collect();
    let tables = deployment::Tables { registry: crate::shown(path), qualified, counts };
    let tokens = deployment::tokens(&deployment.servers, modules, pins, deployment.policy, &tables, &facade.private());
    let source = format_file(tokens, path, &format!("deployment of {}, {}", count(deployment.servers.len() as u64, "server"), count(catalog.routes().count() as u64, "tool")))?;
    Ok(Generated { module: module.to_owned(), source, contracts, warnings, inputs, quarantined })
}
