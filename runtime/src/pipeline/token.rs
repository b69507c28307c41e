//! The typestate tokens: a call is `Resolved` only by resolution, and
//! `Authorized` only by the pipeline after the gate allowed it. Their fields
//! are private and their constructors crate-private, so neither can be forged.

use crate::call::{Annotations, ToolInfo, ToolSet};

/// A call that passed closed-world resolution (H1–H3): the only thing a gate sees.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved<C> {
    call: C,
    id: Option<String>,
    digest: String,
    format: &'static str,
    coercions: usize,
}

impl<C> Resolved<C> {
    pub(crate) fn new(call: C, id: Option<String>, digest: String, format: &'static str, coercions: usize) -> Resolved<C> {
        Resolved { call, id, digest, format, coercions }
    }

    /// The escape hatch for calls built by trusted program code rather than
    /// parsed from a model: they still pass the contract check, the gate and
    /// the verifier, and the audit record says `format: "program"`. Grep for it.
    pub fn trusted_program_call(call: C) -> Resolved<C> {
        Resolved::new(call, None, String::new(), "program", 0)
    }

    /// The call, a member of the sealed set.
    pub fn call(&self) -> &C {
        &self.call
    }

    /// The call id from the wire format, if it had one.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// SHA-256 (hex) of the raw call as received (empty for program calls).
    pub fn raw_digest(&self) -> &str {
        &self.digest
    }

    /// The wire format it arrived in.
    pub fn format(&self) -> &'static str {
        self.format
    }

    /// Numbers lenient mode read out of strings (0 in strict mode).
    pub fn coercions(&self) -> usize {
        self.coercions
    }

    pub(crate) fn authorize(self) -> Authorized<C> {
        Authorized { call: self.call, id: self.id }
    }
}

impl<C: ToolSet> Resolved<C> {
    /// The tool's registry name.
    pub fn name(&self) -> &'static str {
        self.call.name()
    }

    /// The tool's registry metadata (description, digest, annotations).
    pub fn info(&self) -> &'static ToolInfo {
        self.call.info()
    }

    /// The tool's MCP annotations, typed (`read_only_hint`, `destructive_hint`, …).
    pub fn annotations(&self) -> &'static Annotations {
        &self.call.info().annotations
    }
}

/// A resolved call the gate allowed: the only thing an executor accepts.
#[derive(Debug)]
pub struct Authorized<C> {
    call: C,
    id: Option<String>,
}

impl<C> Authorized<C> {
    /// The call.
    pub fn call(&self) -> &C {
        &self.call
    }

    /// The call id from the wire format, if it had one.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The call, to run it.
    pub fn into_call(self) -> C {
        self.call
    }
}

/// A call the gate wants a person to confirm: approve or refuse it with
/// [`Pipeline::confirm`](super::Pipeline::confirm).
#[derive(Debug)]
pub struct Pending<C> {
    pub(crate) resolved: Resolved<C>,
    pub(crate) prompt: String,
    pub(crate) seq: u64,
}

impl<C> Pending<C> {
    /// What to ask the person.
    pub fn prompt(&self) -> &str {
        &self.prompt
    }

    /// The call awaiting confirmation.
    pub fn resolved(&self) -> &Resolved<C> {
        &self.resolved
    }

    /// The audit sequence number of the run that asked.
    pub fn seq(&self) -> u64 {
        self.seq
    }
}
