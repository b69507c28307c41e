//! `toolseal-policy`: Cedar policies over a deployment's pinned tools — the gate
//! (H4) that decides on a call only after it was resolved (H1–H3, M1–M5).
//!
//! The Cedar schema is generated from the pinned registries ([`PolicySchema`]): an
//! action per tool, named by its qualified name, with the call's arguments as
//! `context.input`, typed from the tool's `inputSchema` where Cedar has an exact
//! type (an argument without one is left out, with a comment saying why). Policies
//! are validated against it in strict mode when they are loaded ([`Policies::load`]):
//! a misspelled tool or argument, an optional argument read without `has`, a string
//! compared with a number is refused with its file, line and column.
//!
//! ```
//! use serde_json::json;
//! use toolseal_policy::{Policies, PolicyFile, PolicyGate, PolicySchema, Principal, Tool};
//! use toolseal_runtime::pipeline::Decision;
//!
//! let input = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
//! let schema = PolicySchema::new([Tool { action: "files__write_file", server: "files", tier: "first-party", input_schema: &input }])?;
//! let file = PolicyFile {
//!     path: "policies/files.cedar".into(),
//!     text: r#"
//!         permit(principal, action, resource);
//!         @id("no-secrets") @reason("secrets stay where they are")
//!         forbid(principal, action == Action::"files__write_file", resource) when { context.input.path like "*secret*" };
//!     "#.into(),
//! };
//! let gate = PolicyGate::new(schema.clone(), Policies::load(&schema, &[file])?, &[Principal { name: "alice".into(), groups: vec![] }])?;
//! let call = json!({"path": "/srv/secret.txt"});
//! let verdict = gate.decide("alice", "files__write_file", "files", call.as_object());
//! assert_eq!(verdict.policies, ["no-secrets"]);
//! assert!(matches!(verdict.decision, Decision::Deny { .. }));
//!
//! // A misspelled argument is refused when the policies are loaded.
//! let typo = PolicyFile { path: "typo.cedar".into(), text: r#"forbid(principal, action == Action::"files__write_file", resource) when { context.input.pathz == "x" };"#.into() };
//! let error = Policies::load(&schema, &[typo]).unwrap_err().to_string();
//! assert!(error.contains("typo.cedar:1:") && error.contains("declares no argument `pathz`; did you mean `path`?"), "{error}");
//! # Ok::<(), toolseal_policy::PolicyError>(())
//! ```

mod condition;
mod gate;
mod load;
mod pipeline;
mod schema;
pub mod shape;

use cedar_policy::{EntityId, EntityTypeName, EntityUid};

pub use gate::{PolicyGate, Principal, Verdict};
pub use load::{Policies, PolicyFile, Problem};
pub use pipeline::CedarGate;
pub use schema::{PolicySchema, Tool};

/// Why policies cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// A policy file cannot be read.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        message: String,
    },
    /// Policies that do not parse or do not type-check against the deployment, each with its place.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<Problem>),
    /// The generated schema was refused by Cedar (a bug in toolseal: please report it).
    #[error("the generated Cedar schema was refused: {0}")]
    Schema(String),
    /// The principals or servers do not fit the schema.
    #[error("the policy entities do not fit the schema: {0}")]
    Entities(String),
}

/// `Type::"id"`.
pub(crate) fn entity_uid(kind: &str, id: &str) -> EntityUid {
    // The three type names are fixed identifiers; an entity id may be any string.
    let kind: EntityTypeName = kind.parse().unwrap_or_else(|_| unreachable!("{kind} is an identifier"));
    EntityUid::from_type_name_and_id(kind, EntityId::new(id))
}
