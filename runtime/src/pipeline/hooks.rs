//! Hooks around the gate: a contract check before it (is the registry the
//! running code was compiled from still the one being served?) and an effect
//! verifier after execution (did the tool do what it claims?).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use super::token::Resolved;
use crate::call::ToolSet;
use crate::registry::Registry;

/// Checked before the gate; an error stops the call (fail-closed).
pub trait ContractCheck<C>: Send + Sync {
    /// `Ok` when `call` may go on to the gate.
    fn check(&self, call: &Resolved<C>) -> Result<(), String>;
}

impl<C, F> ContractCheck<C> for F
where
    F: Fn(&Resolved<C>) -> Result<(), String> + Send + Sync,
{
    fn check(&self, call: &Resolved<C>) -> Result<(), String> {
        self(call)
    }
}

/// The live registry's digests must equal those compiled into the code: a
/// tool whose definition changed (description included) or vanished since
/// the build is not run.
#[derive(Debug, Clone, Default)]
pub struct DigestContract {
    live: HashMap<String, String>,
}

impl DigestContract {
    /// The digests of a registry read at run time (e.g. a fresh `tools/list`).
    pub fn from_registry(registry: &Registry) -> DigestContract {
        DigestContract::from_digests(registry.tools.iter().map(|t| (t.name.clone(), t.digest())))
    }

    /// Digests by tool name.
    pub fn from_digests(digests: impl IntoIterator<Item = (String, String)>) -> DigestContract {
        DigestContract { live: digests.into_iter().collect() }
    }
}

impl<C: ToolSet> ContractCheck<C> for DigestContract {
    fn check(&self, call: &Resolved<C>) -> Result<(), String> {
        let info = call.info();
        match self.live.get(info.name) {
            None => Err(format!("tool {:?} is no longer served", info.name)),
            Some(live) if live != info.digest => {
                Err(format!("tool {:?} changed since the build: compiled digest {}…, live {}…", info.name, &info.digest[..12.min(info.digest.len())], &live[..12.min(live.len())]))
            }
            Some(_) => Ok(()),
        }
    }
}

/// An effect verifier's verdict, recorded in the audit record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// The effect was checked and is as expected.
    Verified,
    /// The effect is not as expected; reported, never swallowed.
    Failed {
        /// What is wrong.
        reason: String,
    },
    /// No verifier is configured.
    Unchecked,
}

/// Checks a call's effect after execution.
pub trait Verify<C>: Send + Sync {
    /// The verdict on `call`, which produced `output`.
    fn verify(&self, call: &C, output: &Value) -> Verdict;
}

impl<C, F> Verify<C> for F
where
    F: Fn(&C, &Value) -> Verdict + Send + Sync,
{
    fn verify(&self, call: &C, output: &Value) -> Verdict {
        self(call, output)
    }
}
