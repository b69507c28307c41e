//! The runtime core of [toolseal](https://docs.rs/toolseal): closed-world
//! resolution of LLM tool calls.
//!
//! Most users depend on the `toolseal` facade crate instead. This crate holds
//! what generated code, the build script and the dynamic resolver share:
//!
//! - [`json`]: an order-preserving JSON tree that keeps duplicate keys;
//! - [`rejection`]: the typed [`Rejection`] with its [`Class`] (H1–H3, malformed);
//! - [`check`]: the constraint checks every resolver runs;
//! - [`schema`]: JSON Schema compiled to an IR that keeps every constraint;
//! - [`validate`]: an interpreter of that IR;
//! - [`registry`]: registry files (MCP, OpenAI, Anthropic, Bedrock) and digests;
//! - [`call`]: the call envelope `{"name", "arguments"}` and resolution options;
//! - [`wire`]: tool calls in vendor formats, and answers in the same formats;
//! - [`definitions`]: the registry's tools in every vendor's request shape, to show a model;
//! - [`pipeline`]: resolve → contract → gate → execute → verify, typestate-enforced, audited;
//! - [`feedback`]: rejections as the model reads them, and a retry budget.
//!
//! Feature `testing` adds `probe` (calls whose verdict, class and pointer are known by
//! construction, built from a tool's compiled schema) and `mcp::trials` (the same for a
//! merged deployment, M1–M5): for tests, benchmarks and checking a registry, not for
//! resolving calls.

#![deny(missing_docs)]

#[cfg(feature = "async-openai")]
pub mod async_openai;
pub mod call;
pub mod canonical;
pub mod check;
#[doc(hidden)]
pub mod contract;
pub mod definitions;
pub mod dispatch;
pub mod dynamic;
pub mod feedback;
pub mod fits;
pub mod format;
#[cfg(feature = "genai")]
pub mod genai;
#[doc(hidden)]
pub mod generated;
#[cfg(feature = "rmcp")]
pub mod guard;
pub mod json;
pub mod mcp;
mod name_hash;
mod names;
pub mod path;
pub mod pattern;
pub mod pipeline;
#[cfg(feature = "testing")]
pub mod probe;

pub mod registry;
pub mod rejection;
#[cfg(feature = "rig")]
pub mod rig;
pub mod schema;
pub mod typed;
pub use schema::validate;
pub mod wire;

pub use call::{Annotations, Options, Resolution, ToolInfo, ToolSet};
pub use json::{Json, JsonKind};
/// The closest names to a misspelled one (the feedback's suggestions), for names outside a registry.
pub use names::closest;
pub use rejection::{Class, Keyword, Rejection};
pub use typed::FromJson;
