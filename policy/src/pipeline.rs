//! The same Cedar gate for a Rust host: a [`Gate`] of the library's `Pipeline`
//! over a generated `ToolCall`, its schema from the sealed enum's own tools.

use serde_json::Value;
use toolseal_runtime::ToolSet;
use toolseal_runtime::pipeline::{Decision, Gate, Resolved};

use crate::{Policies, PolicyError, PolicyFile, PolicyGate, PolicySchema, Principal, Tool};

/// A Cedar gate for the `Pipeline` of a generated `ToolCall` (`C`): one action per
/// tool of the registry, named as the registry names it (`Action::"transfer_funds"`),
/// the resource `Server::"<server>"`, every call made by one principal.
///
/// ```ignore
/// let gate = CedarGate::<ToolCall>::new("bank", &[PolicyFile::read("policies/bank.cedar".as_ref())?], principal, ToolCall::arguments)?;
/// let pipeline = Pipeline::new(gate);
/// ```
pub struct CedarGate<C> {
    gate: PolicyGate,
    principal: String,
    server: String,
    arguments: fn(&C) -> Value,
}

impl<C: ToolSet> CedarGate<C> {
    /// The gate of `files` over `C`'s tools (their `inputSchema`s as the registry declares
    /// them), deciding every call as `principal`; `arguments` is the generated
    /// `ToolCall::arguments` (the call's arguments as JSON, defaults applied). The
    /// policies are validated against the schema here, as the gateway does.
    pub fn new(server: &str, files: &[PolicyFile], principal: Principal, arguments: fn(&C) -> Value) -> Result<CedarGate<C>, PolicyError> {
        let inputs: Vec<(&str, Value)> = C::TOOLS
            .iter()
            .map(|tool| {
                let definition: Value = serde_json::from_str(tool.definition).unwrap_or(Value::Null);
                (tool.name, definition.get("inputSchema").cloned().unwrap_or(Value::Null))
            })
            .collect();
        let schema = PolicySchema::new(inputs.iter().map(|(action, input)| Tool { action, server, tier: "", input_schema: input }))?;
        let policies = Policies::load(&schema, files)?;
        let name = principal.name.clone();
        Ok(CedarGate { gate: PolicyGate::new(schema, policies, &[principal])?, principal: name, server: server.to_owned(), arguments })
    }

    /// The gate underneath (its schema, its policies).
    pub fn policy_gate(&self) -> &PolicyGate {
        &self.gate
    }
}

impl<C: ToolSet + Send + Sync, S> Gate<C, S> for CedarGate<C> {
    fn check(&self, call: &Resolved<C>, _state: &S) -> Decision {
        let arguments = (self.arguments)(call.call());
        self.gate.decide(&self.principal, call.name(), &self.server, arguments.as_object()).decision
    }
}
