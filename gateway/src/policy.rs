//! The deployment's Cedar policies (feature `policy`): read once when the gateway
//! starts, checked against every deployment it compiles (a listing approved or
//! accepted later included: a policy that no longer holds keeps the previous
//! deployment serving), and decided on every resolved call.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolseal_policy::{Policies, PolicyError, PolicyFile, PolicyGate, PolicySchema, Principal, Tool};
use toolseal_runtime::mcp::manifest::Deployment;

use toolseal_runtime::mcp::manifest::read_manifest;

use crate::GatewayError;
use crate::caller::Callers;
use crate::listing::{CompileError, Naming, ServerListing, State};

/// The policy files and the principals they are decided for.
pub(crate) struct PolicySources {
    files: Vec<PolicyFile>,
    principals: Vec<Principal>,
}

impl PolicySources {
    /// Reads `paths`; `None` when there are none (the gateway then decides nothing).
    /// The principals are the manifest's, and the local caller (with no groups) when the manifest does not name it.
    pub(crate) fn read(paths: &[PathBuf], deployment: &Deployment, callers: &Callers) -> Result<Option<PolicySources>, PolicyError> {
        if paths.is_empty() {
            return Ok(None);
        }
        let files = paths.iter().map(|p| PolicyFile::read(p)).collect::<Result<_, _>>()?;
        let mut principals: Vec<Principal> = deployment.principals.iter().map(|p| Principal { name: p.name.clone(), groups: p.groups.clone() }).collect();
        if !principals.iter().any(|p| p.name == callers.local()) {
            principals.push(Principal { name: callers.local().to_owned(), groups: Vec::new() });
        }
        Ok(Some(PolicySources { files, principals }))
    }

    /// The gate of these policies over `state`'s deployment, or every problem with its place.
    pub(crate) fn gate(&self, state: &State, servers: &[ServerListing]) -> Result<Arc<PolicyGate>, CompileError> {
        let failed = |e: PolicyError| CompileError::Policy { message: e.to_string() };
        let schema = schema(state, servers).map_err(failed)?;
        let policies = Policies::load(&schema, &self.files).map_err(failed)?;
        Ok(Arc::new(PolicyGate::new(schema, policies, &self.principals).map_err(failed)?))
    }
}

/// The Cedar schema of `state`'s deployment.
pub(crate) fn schema(state: &State, servers: &[ServerListing]) -> Result<PolicySchema, PolicyError> {
    let tools = state.policy_tools(servers);
    PolicySchema::new(tools.iter().map(|(action, server, tier, input)| Tool { action, server, tier, input_schema: input }))
}

/// The deployment `manifest` pins, compiled as the gateway compiles it, without starting anything.
fn pinned_state(manifest: &Path) -> Result<(Deployment, Vec<ServerListing>, State), GatewayError> {
    let deployment = read_manifest(manifest)?;
    let listings = crate::pinned_listings(&deployment)?;
    let naming = Naming { pins: deployment.pins.clone(), policy: deployment.policy, budget: toolseal_runtime::mcp::MAX_LEN };
    let state = State::compile(&listings, &naming).map_err(|source| GatewayError::Deployment { path: manifest.display().to_string(), source })?;
    Ok((deployment, listings, state))
}

/// The Cedar schema the policies of `manifest`'s deployment are checked against, from its pins
/// (`toolseal policy schema`).
pub fn policy_schema(manifest: &Path) -> Result<PolicySchema, GatewayError> {
    let (_, listings, state) = pinned_state(manifest)?;
    schema(&state, &listings).map_err(|e| GatewayError::Policy(e.to_string()))
}

/// Checks the manifest's `policies` and `extra` files against its pinned deployment, as
/// the gateway does when it starts (`toolseal policy check`): the files read and the
/// number of policies, or every problem with its file, line and column.
pub fn check_policies(manifest: &Path, extra: &[PathBuf]) -> Result<(Vec<PathBuf>, usize), GatewayError> {
    let (deployment, listings, state) = pinned_state(manifest)?;
    let files: Vec<PathBuf> = deployment.policies.iter().chain(extra).cloned().collect();
    let callers = Callers::new(&deployment);
    let Some(sources) = PolicySources::read(&files, &deployment, &callers).map_err(|e| GatewayError::Policy(e.to_string()))? else {
        return Err(GatewayError::Policy(format!("{}: no policy file: name them in `policies` or with --policy", manifest.display())));
    };
    let gate = sources.gate(&state, &listings).map_err(|source| GatewayError::Deployment { path: manifest.display().to_string(), source })?;
    Ok((files, gate.policies().len()))
}
