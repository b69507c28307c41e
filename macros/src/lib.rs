//! `#[toolseal::tool]` and `#[toolseal::toolset]`: tool implementations
//! checked against the registry at compile time; `#[derive(toolseal::Args)]`:
//! a Rust type resolved in the closed world (what generated code is made of).
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
mod derive;
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

/// A Rust type resolved in the closed world, as the code `toolseal-build`
/// generates is (generated types derive it): `FromJson` (H2/H3 rejected while
/// reading), `Deserialize` through it, `Serialize` and `schemars::JsonSchema`,
/// all from one definition.
///
/// - **A struct with named fields** is a closed object: each field a declared key
///   (`#[toolseal(rename = "key")]`), an `Option` field an optional one, a field with
///   `#[toolseal(default = expr)]` filled when absent, an `Option` field with
///   `#[toolseal(required)]` a required key that may be null; any other key is
///   refused (H2) unless a `BTreeMap<String, V>` field marked `#[toolseal(flatten)]`
///   keeps them (`require = "key"` on it for a key that must be among them, `any`
///   for a schema that shows any value). `min_properties = N`, `max_properties = N`
///   on the struct.
/// - **A field** of type `String`, `i64`, `u64`, `f64` or `Vec<T>` (or an `Option`
///   of one) takes constraints: `min_length`, `max_length`, `pattern = "…"` (compiled
///   while the derive expands: a bad one fails the build), `format = "date"`
///   (strings); `minimum`, `maximum`, `exclusive_minimum`, `exclusive_maximum`,
///   `multiple_of` (numbers); `min_items`, `max_items`, `unique_items` (arrays).
///   Such a field's docs are its description in the schema.
/// - **A newtype** (`struct AccountId(String);`) is a value with the constraints on
///   the type, `get`, `into_inner` and a validating `TryFrom`; over
///   `serde_json::Value`, `values = ["1", "null"]` (JSON texts; with `const`, one),
///   `never`, `quarantined = "why", tool = "name"` or `spec = STATIC, pointer = "…",
///   schema = "…"` name its table.
/// - **A tuple struct** marked `#[toolseal(tuple)]` is `prefixItems`: `Option`
///   elements, then the rest in a last `Vec` field marked `#[toolseal(rest)]`
///   (`min_items`, `max_items`, `unique_items`, `untyped` on the struct).
/// - **An enum of unit variants** is a string `enum` (`#[toolseal(rename = "EUR")]`
///   on a variant; `#[toolseal(const)]` for a single value), with `as_str`; **of
///   one-value variants**, a union (`anyOf`, `#[toolseal(one_of)]` for `oneOf`,
///   `expected = "…"` for what its rejection says it expected), options tried in order.
///
/// A type's docs are its description, up to a paragraph that begins
/// `Constraints:` or `Default:`; `#[toolseal(description = "…")]` or
/// `#[toolseal(undescribed)]` say otherwise, and `#[toolseal(crate = "path")]`
/// names the `toolseal` crate when it is not `::toolseal`. Do not also derive
/// serde's `Serialize` or `Deserialize`: this derive implements both.
#[proc_macro_derive(Args, attributes(toolseal))]
pub fn derive_args(input: TokenStream) -> TokenStream {
    derive::args(input.into()).into()
}

/// The sealed set of a registry's tools: an enum with one variant per tool,
/// holding the tool's arguments (a type deriving [`Args`](derive@Args)), each
/// variant marked with its tool's canonical definition (RFC 8785, as
/// `toolseal_build` writes it):
/// `#[toolseal(definition = r#"{"inputSchema":…,"name":"get-sum"}"#)]`, and
/// `title = "…"` / `quarantined = "why"` where they apply; on the enum,
/// `#[toolseal(registry = "file")]` and, when the crate is not `::toolseal`,
/// `crate = "path"`. It implements `toolseal::ToolSet` (the name table, the
/// tool table with each definition's digest, resolution by name) and the
/// inherent `from_json`, `from_json_with`, `from_value`, `name`, `info`,
/// `argument_schemas`, `definitions`, `definitions_for`, `arguments`, and
/// `Serialize` to the call object. Generated code derives it; a definition that
/// is not canonical is a compile error.
#[proc_macro_derive(ToolSet, attributes(toolseal))]
pub fn derive_tool_set(input: TokenStream) -> TokenStream {
    derive::tool_set(input.into()).into()
}
