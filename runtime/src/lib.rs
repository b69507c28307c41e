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
//! - [`call`]: the call envelope `{"name", "arguments"}` and resolution options.

#![deny(missing_docs)]

pub mod call;
pub mod canonical;
pub mod check;
pub mod dispatch;
pub mod dynamic;
pub mod format;
pub mod json;
pub mod path;
pub mod probe;
pub mod pattern;

pub mod registry;
pub mod rejection;
pub mod schema;
pub mod typed;
pub mod validate;

pub use call::{Annotations, Options, Resolution, ToolInfo, ToolSet};
pub use typed::FromJson;
pub use json::{Json, JsonKind};
pub use rejection::{Class, Keyword, Rejection};
