//! `toolseal policy`: the Cedar policies of a deployment, checked against its
//! pinned registries (`check`) and the schema they are checked against (`schema`),
//! without starting a server.

use std::path::{Path, PathBuf};

use crate::Failure;

/// `toolseal policy check`: exit 0 when every policy holds, 1 with every problem located.
pub(crate) fn check(manifest: &Path, extra: &[PathBuf]) -> Result<u8, Failure> {
    match toolseal_gateway::check_policies(manifest, extra) {
        Ok((files, count)) => {
            let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            println!("{count} {} in {} hold for {}", if count == 1 { "policy" } else { "policies" }, files.join(", "), manifest.display());
            Ok(0)
        }
        Err(toolseal_gateway::GatewayError::Deployment { source: toolseal_gateway::CompileError::Policy { message }, .. }) => {
            eprintln!("{message}");
            Ok(1)
        }
        Err(e) => Err(Failure::new(2, e.to_string())),
    }
}

/// `toolseal policy schema [--json]`: prints the Cedar schema.
pub(crate) fn schema(manifest: &Path, json: bool) -> Result<u8, Failure> {
    let schema = toolseal_gateway::policy_schema(manifest).map_err(|e| Failure::new(2, e.to_string()))?;
    if json {
        let value = schema.json().map_err(|e| Failure::new(2, e.to_string()))?;
        println!("{}", serde_json::to_string_pretty(&value).map_err(|e| Failure::new(2, e.to_string()))?);
    } else {
        print!("{}", schema.text());
    }
    Ok(0)
}
