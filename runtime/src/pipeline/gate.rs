//! The gate (H4): whether a resolved call is allowed in the current state.

use std::collections::{HashMap, HashSet};
use std::fmt::Debug;
use std::hash::Hash;

use serde::Serialize;

use super::token::Resolved;
use crate::call::ToolSet;

/// A gate's decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Run the call.
    Allow,
    /// Do not run it (H4 when the tool is real but not allowed now).
    Deny {
        /// Why, for the audit record and the model.
        reason: String,
    },
    /// A person must approve it first.
    Confirm {
        /// What to ask.
        prompt: String,
    },
}

impl Decision {
    /// `Deny` with `reason`.
    pub fn deny(reason: impl Into<String>) -> Decision {
        Decision::Deny { reason: reason.into() }
    }

    /// `Confirm` with `prompt`.
    pub fn confirm(prompt: impl Into<String>) -> Decision {
        Decision::Confirm { prompt: prompt.into() }
    }
}

/// A causal or policy gate over the sealed call type `C` and a state `S`.
/// It sees only [`Resolved`] calls; a panic in `check` denies the call.
pub trait Gate<C, S>: Send + Sync {
    /// Decides on `call` in `state`.
    fn check(&self, call: &Resolved<C>, state: &S) -> Decision;

    /// The other visible tools whose signature `call`'s arguments fit at least as well (H5),
    /// for the audit record of a call this gate did not allow; empty unless the gate looks
    /// (see [`crate::fits::AlsoFitsGate`]).
    fn rivals(&self, call: &Resolved<C>, state: &S) -> Vec<String> {
        let _ = (call, state);
        Vec::new()
    }
}

/// The rivals every gate of a combination names, each once.
fn rivals_of<C, S>(gates: &[Box<dyn Gate<C, S>>], call: &Resolved<C>, state: &S) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for rival in gates.iter().flat_map(|g| g.rivals(call, state)) {
        if !all.contains(&rival) {
            all.push(rival);
        }
    }
    all
}

impl<C, S, F> Gate<C, S> for F
where
    F: Fn(&Resolved<C>, &S) -> Decision + Send + Sync,
{
    fn check(&self, call: &Resolved<C>, state: &S) -> Decision {
        self(call, state)
    }
}

/// Which tools are visible and allowed in which state: the H4 check.
/// A state it does not know allows nothing (fail-closed).
#[derive(Debug, Clone)]
pub struct FrontierGate<S> {
    frontier: HashMap<S, HashSet<String>>,
    confirm_destructive: bool,
}

impl<S: Eq + Hash> Default for FrontierGate<S> {
    fn default() -> Self {
        FrontierGate { frontier: HashMap::new(), confirm_destructive: false }
    }
}

impl<S: Eq + Hash> FrontierGate<S> {
    /// A frontier that allows nothing yet.
    pub fn new() -> FrontierGate<S> {
        FrontierGate::default()
    }

    /// Allows `tools` in `state` (in addition to any allowed before).
    pub fn allow<I, T>(mut self, state: S, tools: I) -> FrontierGate<S>
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        self.frontier.entry(state).or_default().extend(tools.into_iter().map(Into::into));
        self
    }

    /// Asks for confirmation, instead of allowing, when the tool's registry
    /// annotations say `destructiveHint: true`.
    pub fn confirm_destructive(mut self) -> FrontierGate<S> {
        self.confirm_destructive = true;
        self
    }

    /// The tools allowed in `state` (what the model should be shown).
    pub fn visible(&self, state: &S) -> Vec<&str> {
        let mut tools: Vec<&str> = self.frontier.get(state).into_iter().flatten().map(String::as_str).collect();
        tools.sort_unstable();
        tools
    }
}

impl<C: ToolSet, S: Eq + Hash + Debug + Send + Sync> Gate<C, S> for FrontierGate<S> {
    fn check(&self, call: &Resolved<C>, state: &S) -> Decision {
        let Some(allowed) = self.frontier.get(state) else {
            return Decision::deny(format!("state {state:?} allows no tools"));
        };
        let name = call.name();
        if !allowed.contains(name) {
            return Decision::deny(format!("H4: tool {name:?} is not allowed in state {state:?}"));
        }
        if self.confirm_destructive && call.annotations().destructive_hint == Some(true) {
            return Decision::confirm(format!("{name:?} is destructive: run it?"));
        }
        Decision::Allow
    }
}

/// Allows only what every gate allows; any `Deny` denies, else any `Confirm`
/// confirms. No gates at all deny (fail-closed).
pub struct AllOf<C, S>(Vec<Box<dyn Gate<C, S>>>);

/// Allows what any gate allows; else any `Confirm` confirms; else denies with
/// every reason. No gates at all deny.
pub struct AnyOf<C, S>(Vec<Box<dyn Gate<C, S>>>);

/// Combines gates so that all must allow.
pub fn all_of<C, S>(gates: Vec<Box<dyn Gate<C, S>>>) -> AllOf<C, S> {
    AllOf(gates)
}

/// Combines gates so that one allowing is enough.
pub fn any_of<C, S>(gates: Vec<Box<dyn Gate<C, S>>>) -> AnyOf<C, S> {
    AnyOf(gates)
}

impl<C, S> Gate<C, S> for AllOf<C, S> {
    fn check(&self, call: &Resolved<C>, state: &S) -> Decision {
        if self.0.is_empty() {
            return Decision::deny("an empty all-of gate allows nothing");
        }
        let mut confirm = None;
        for gate in &self.0 {
            match gate.check(call, state) {
                Decision::Allow => {}
                deny @ Decision::Deny { .. } => return deny,
                c @ Decision::Confirm { .. } => confirm = confirm.or(Some(c)),
            }
        }
        confirm.unwrap_or(Decision::Allow)
    }

    fn rivals(&self, call: &Resolved<C>, state: &S) -> Vec<String> {
        rivals_of(&self.0, call, state)
    }
}

impl<C, S> Gate<C, S> for AnyOf<C, S> {
    fn check(&self, call: &Resolved<C>, state: &S) -> Decision {
        let mut confirm = None;
        let mut reasons = Vec::new();
        for gate in &self.0 {
            match gate.check(call, state) {
                Decision::Allow => return Decision::Allow,
                Decision::Deny { reason } => reasons.push(reason),
                c @ Decision::Confirm { .. } => confirm = confirm.or(Some(c)),
            }
        }
        confirm.unwrap_or_else(|| Decision::deny(if reasons.is_empty() { "an empty any-of gate allows nothing".to_owned() } else { reasons.join("; ") }))
    }

    fn rivals(&self, call: &Resolved<C>, state: &S) -> Vec<String> {
        rivals_of(&self.0, call, state)
    }
}
