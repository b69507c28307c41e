//! `toolseal login`: authorize the gateway at a manifest server that requires OAuth.

use std::path::Path;
use std::time::Duration;

use toolseal_gateway::oauth::{OAuthError, login};

use crate::Failure;
use crate::capture::runtime;
use crate::gateway::unpinned_server;

/// Runs `login`: prints the address a person opens, waits up to `wait` for the redirect, stores the tokens.
/// Exit 2 for a usage or token-file problem, 3 when the authorization failed.
pub(crate) fn run(server: &str, manifest: &Path, wait: Duration) -> Result<u8, Failure> {
    let entry = unpinned_server(manifest, server)?;
    let done = runtime()?
        .block_on(login(&entry, wait, |address| {
            eprintln!("toolseal: open this address in a browser to authorize {server}:\n  {address}");
        }))
        .map_err(|e| match e {
            OAuthError::Protocol { .. } => Failure::new(3, e.to_string()),
            e => Failure::new(2, e.to_string()),
        })?;
    let by = done.issuer.map(|issuer| format!(" (tokens issued by {issuer})")).unwrap_or_default();
    eprintln!("toolseal: logged in to {server}{by}; they are kept in {}, readable by you only", done.store.display());
    Ok(0)
}
