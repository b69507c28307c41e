//! `#[toolseal::tool]` and `#[toolseal::toolset]`: tool implementations
//! checked against the registry at compile time.
//!
//! Use them through the `toolseal` crate, whose documentation has the tutorial.
//! Both read the contract `toolseal-build` writes beside the generated code
//! (`$OUT_DIR/toolseal/<module>.contract.json`, or `$TOOLSEAL_CONTRACTS/…`),
//! so the registry file stays the one source of truth: rename a field there
//! and the build fails at the implementation that still uses the old name.
//!
//! Expansion follows serde_derive: parse → check → expand, errors gathered
//! and spanned on the user's tokens, and the user's items emitted unchanged
//! when a check fails, so one mistake does not cause a flood of others.

#![deny(missing_docs)]

mod attr;
mod bind;
mod expand;

use proc_macro::TokenStream;

/// Marks a function or method as the implementation of a registry tool.
///
/// The tool is the function's name, or `#[tool(name = "get-sum")]`;
/// `registry = "bank"` picks the module compiled with `.registry_as(.., "bank")`
/// (default `registry`), expected at `crate::bank` unless
/// `module = path::to::bank` says where `include_registry!` put it.
/// Parameters are the argument struct (`args: TransferFundsArgs`) or its
/// fields by their Rust names; one parameter may be marked `#[ctx]`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(attr.into(), item.into()).into()
}

/// Generates an exhaustive `dispatch` for an inherent impl whose `#[tool]`
/// methods implement every tool of one registry.
///
/// `#[toolset(registry = "bank", module = path, error = MyError)]`; all keys
/// optional. `dispatch(&self, call: ToolCall[, ctx])` returns
/// `Result<serde_json::Value, toolseal::DispatchError<E>>` and is `async`
/// when any tool is.
#[proc_macro_attribute]
pub fn toolset(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::toolset(attr.into(), item.into()).into()
}
