//! `toolseal login`: authorize the gateway at a manifest server that requires OAuth.

use std::path::Path;
use std::time::Duration;

use toolseal_gateway::oauth::{OAuthError, login};

use crate::Failure;
use crate::capture::runtime;
use crate::gateway::unpinned_server;

/// Opens `address` in the person's browser when this runs in a terminal: `$BROWSER`, else `xdg-open` (`open` on
/// macOS). Nothing is opened when stderr is not a terminal (a script reads the address), and a failure is silent:
/// the address is printed either way.
fn open_browser(address: &str) {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return;
    }
    let opener = std::env::var("BROWSER").ok().filter(|b| !b.is_empty()).unwrap_or_else(|| if cfg!(target_os = "macos") { "open" } else { "xdg-open" }.to_owned());
    let _ = std::process::Command::new(opener).arg(address).stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn();
}

/// Runs `login`: prints the address a person opens, waits up to `wait` for the redirect, stores the tokens.
/// Exit 2 for a usage or token-file problem, 3 when the authorization failed.
pub(crate) fn run(server: &str, manifest: &Path, wait: Duration) -> Result<u8, Failure> {
    let entry = unpinned_server(manifest, server)?;
    let done = runtime()?
        .block_on(login(&entry, wait, |address| {
            eprintln!("toolseal: open this address in a browser to authorize {server}:\n  {address}");
            open_browser(address);
        }))
        .map_err(|e| match e {
            OAuthError::Protocol { .. } => Failure::new(3, e.to_string()),
            e => Failure::new(2, e.to_string()),
        })?;
    let by = done.issuer.map(|issuer| format!(" (tokens issued by {issuer})")).unwrap_or_default();
    eprintln!("toolseal: logged in to {server}{by}; they are kept in {}, readable by you only", done.store.display());
    Ok(0)
}
