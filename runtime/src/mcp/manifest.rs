//! Deployment manifests (`toolseal.toml`, feature `manifest`): several MCP servers,
//! each with a trust tier, a pinned registry and how to reach it. `toolseal-build`
//! compiles one into a module holding a sealed `ToolCall` per server and an `McpCall`
//! enum; the gateway and the command read it here.
//!
//! ```toml
//! tiers = ["first-party", "vetted", "community"]   # most trusted first
//! policy = "strict"                                # or "pin-assisted"
//! shadowing = "warn"                               # or "error"
//!
//! [[servers]]
//! name = "filesystem"                              # the host's key: [a-zA-Z0-9-]{1,32}
//! tier = "first-party"
//! registry = "registries/server-filesystem.json"   # relative to this file
//!
//! command = ["npx", "@modelcontextprotocol/server-filesystem", "/srv"]  # optional: for `toolseal host` and `gateway`
//! # url = "http://127.0.0.1:3001/mcp"            # or a Streamable HTTP server (for `toolseal gateway`)
//!
//! [pins]                                           # settles same-tier collisions under pin-assisted
//! read_file = "filesystem"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::dynamic::DynamicDeployment;
use crate::mcp::{Catalog, Policy, ServerSpec};
use crate::registry::{Registry, RegistryError, read_registry};
use crate::schema::CompileOptions;

/// Why a manifest cannot be used; each names the file at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// The manifest or a registry it names cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A registry the manifest names is not a registry.
    #[error("{}: {source}", path.display())]
    Registry {
        /// The registry file.
        path: PathBuf,
        /// What is wrong, with the JSON pointer.
        source: RegistryError,
    },
    /// The manifest is malformed or inconsistent.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// What to do when a lower-tier server declares a higher-tier server's tool name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum OnShadowing {
    /// Report it as a build warning (flat calls to the name are rejected as M3 either way).
    #[default]
    Warn,
    /// Fail the build.
    Error,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    tiers: Vec<String>,
    #[serde(default)]
    policy: Policy,
    #[serde(default)]
    shadowing: OnShadowing,
    servers: Vec<ServerEntry>,
    #[serde(default)]
    pins: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerEntry {
    name: String,
    tier: String,
    registry: PathBuf,
    /// How a host starts it over stdio (used by `toolseal host --manifest`, not by the build).
    #[serde(default)]
    command: Option<Vec<String>>,
    /// Where a gateway reaches it over Streamable HTTP instead (used by `toolseal gateway`, not by the build).
    #[serde(default)]
    url: Option<String>,
}

fn manifest_error(path: &Path, message: impl Into<String>) -> ManifestError {
    ManifestError::Invalid { path: path.to_owned(), message: message.into() }
}

/// A deployment manifest, read and checked, with every server's registry.
#[derive(Debug, Clone)]
pub struct Deployment {
    /// The manifest's policy.
    pub policy: Policy,
    /// The servers, in manifest order.
    pub servers: Vec<DeploymentServer>,
    /// `(tool, server)` pins.
    pub pins: Vec<(String, String)>,
    /// What a lower-tier server declaring a higher-tier server's name does to a build.
    pub shadowing: OnShadowing,
}

/// One server of a [`Deployment`].
#[derive(Debug, Clone)]
pub struct DeploymentServer {
    /// The host's key for it.
    pub name: String,
    /// Its tier's index (0 is the most trusted).
    pub tier: usize,
    /// Its tier's name.
    pub tier_name: String,
    /// Its registry file, resolved against the manifest's directory.
    pub registry_path: PathBuf,
    /// The registry file's bytes.
    pub registry_bytes: Vec<u8>,
    /// The command that starts it over stdio, if the manifest gives one (run in the manifest's directory).
    pub command: Option<Vec<String>>,
    /// The Streamable HTTP endpoint that serves it, if the manifest gives one instead of `command`.
    pub url: Option<String>,
}

impl Deployment {
    /// The merged namespace (validates names, pins and qualified-name uniqueness).
    pub fn catalog(&self, path: &Path) -> Result<Catalog, ManifestError> {
        let specs = self.registries()?.iter().map(|(name, tier, tier_name, registry)| ServerSpec::listing(name, *tier, tier_name, registry)).collect();
        Catalog::new(specs, &self.pins, self.policy).map_err(|e| manifest_error(path, e.to_string()))
    }

    /// Each server's registry, read: `(name, tier, tier name, registry)` in
    /// manifest order, as `DynamicDeployment::new` takes them.
    pub fn registries(&self) -> Result<Vec<(String, usize, String, Registry)>, ManifestError> {
        self.servers
            .iter()
            .map(|server| {
                let registry = read_registry(&server.registry_bytes).map_err(|source| ManifestError::Registry { path: server.registry_path.clone(), source })?;
                Ok((server.name.clone(), server.tier, server.tier_name.clone(), registry))
            })
            .collect()
    }

    /// The deployment compiled at run time (the same rules as the generated `McpCall`).
    pub fn compile_dynamic(&self, path: &Path, options: &CompileOptions) -> Result<DynamicDeployment, ManifestError> {
        DynamicDeployment::new(&self.registries()?, &self.pins, self.policy, options).map_err(|e| manifest_error(path, e.to_string()))
    }
}

/// Reads the manifest at `path` and every registry it names.
pub fn read_manifest(path: &Path) -> Result<Deployment, ManifestError> {
    let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Io { path: path.to_owned(), source })?;
    let manifest: ManifestFile = toml::from_str(&text).map_err(|e| manifest_error(path, e.to_string().trim_end().replace('\n', " ")))?;
    if manifest.tiers.is_empty() {
        return Err(manifest_error(path, "`tiers` lists no tier; name them most trusted first, e.g. [\"first-party\", \"community\"]"));
    }
    for (i, tier) in manifest.tiers.iter().enumerate() {
        if manifest.tiers[..i].contains(tier) {
            return Err(manifest_error(path, format!("tier {tier:?} is listed twice")));
        }
    }
    if manifest.servers.is_empty() {
        return Err(manifest_error(path, "no `[[servers]]`"));
    }
    let base = path.parent().unwrap_or(Path::new(""));
    let mut servers = Vec::new();
    for server in &manifest.servers {
        let Some(tier) = manifest.tiers.iter().position(|t| *t == server.tier) else {
            return Err(manifest_error(path, format!("server {:?}: tier {:?} is not one of `tiers` {:?}", server.name, server.tier, manifest.tiers)));
        };
        let registry_path = base.join(&server.registry);
        let registry_bytes = std::fs::read(&registry_path).map_err(|source| ManifestError::Io { path: registry_path.clone(), source })?;
        if server.command.as_ref().is_some_and(Vec::is_empty) {
            return Err(manifest_error(path, format!("server {:?}: `command` is empty", server.name)));
        }
        if server.command.is_some() && server.url.is_some() {
            return Err(manifest_error(path, format!("server {:?}: give `command` (stdio) or `url` (Streamable HTTP), not both", server.name)));
        }
        if let Some(url) = &server.url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(manifest_error(path, format!("server {:?}: `url` {url:?} is not an http:// or https:// address", server.name)));
        }
        servers.push(DeploymentServer { name: server.name.clone(), tier, tier_name: server.tier.clone(), registry_path, registry_bytes, command: server.command.clone(), url: server.url.clone() });
    }
    let pins = manifest.pins.iter().map(|(t, s)| (t.clone(), s.clone())).collect();
    Ok(Deployment { policy: manifest.policy, servers, pins, shadowing: manifest.shadowing })
}
