//! IR → Rust, in two steps. [`model`] decides every generated type from the
//! schema IR — name, kind, docs, shared structure, contract fields — before any
//! token is written; the emitters then write the model, one concern each:
//!
//! - [`types`]: the type definitions a user reads (structs, enums, aliases),
//!   deriving `toolseal::Args` with their keys, defaults and constraints as
//!   attributes (the derive, in `toolseal-macros`, writes their impls);
//! - [`tool_call`]: the sealed `ToolCall` enum;
//! - [`contract`]: the contract file `#[toolseal::tool]` checks against;
//! - [`deployment`]: a deployment's `McpCall` over several registries.
//!
//! Support code the emitted items call lives in the runtime (`generated`) and
//! the facade (`__private`).

mod contract;
pub(crate) mod deployment;
mod model;
mod tool_call;
mod types;

use proc_macro2::TokenStream;
use quote::quote;
use toolseal_runtime::registry::ToolDef;
use toolseal_runtime::schema::{IntRepr, SchemaDoc};

use crate::facade::Facade;
use model::{Ty, TypeSpace};
use toolseal_runtime::contract::Contract;

/// One tool with its compiled arguments and output schemas.
pub(crate) struct ToolInput<'a> {
    /// The registry definition.
    pub def: &'a ToolDef,
    /// Its compiled `inputSchema`, or why it cannot be enforced (the tool is quarantined).
    pub schema: Result<SchemaDoc, String>,
    /// Its compiled `outputSchema`, if it declares one.
    pub output: Option<SchemaDoc>,
}

/// How emitted code names the facade.
struct Emit {
    facade: Facade,
    /// `<facade>::__private`, the support module generated types name.
    private: TokenStream,
}

impl Ty {
    /// The type as code where `rt` names the support module (`<facade>::__private`) writes it.
    fn tokens(&self, rt: &TokenStream) -> TokenStream {
        self.write(rt, false)
    }

    /// The type as a contract names it for `#[toolseal::tool]`: the generated
    /// types under `self::`, which the macro replaces with the module's path.
    fn contract_tokens(&self, rt: &TokenStream) -> TokenStream {
        self.write(rt, true)
    }

    fn write(&self, rt: &TokenStream, in_contract: bool) -> TokenStream {
        match self {
            Ty::Named(id) if in_contract => quote!(self::#id),
            Ty::Named(id) => quote!(#id),
            Ty::Bool => quote!(bool),
            Ty::Int(IntRepr::I64) => quote!(i64),
            Ty::Int(IntRepr::U64) => quote!(u64),
            Ty::F64 => quote!(f64),
            Ty::String if in_contract => quote!(::std::string::String),
            Ty::String => quote!(String),
            Ty::Unit => quote!(()),
            Ty::Value => quote!(#rt::serde_json::Value),
            Ty::Vec(t) => {
                let t = t.write(rt, in_contract);
                quote!(::std::vec::Vec<#t>)
            }
            Ty::Map(t) => {
                let t = t.write(rt, in_contract);
                quote!(::std::collections::BTreeMap<::std::string::String, #t>)
            }
            Ty::Option(t) => {
                let t = t.write(rt, in_contract);
                quote!(::core::option::Option<#t>)
            }
            Ty::Boxed(t) => {
                let t = t.write(rt, in_contract);
                quote!(::std::boxed::Box<#t>)
            }
        }
    }

    /// The type as a person writes it: `Option<Vec<String>>`.
    fn display(&self) -> String {
        match self {
            Ty::Named(id) => id.to_string(),
            Ty::Bool => "bool".into(),
            Ty::Int(IntRepr::I64) => "i64".into(),
            Ty::Int(IntRepr::U64) => "u64".into(),
            Ty::F64 => "f64".into(),
            Ty::String => "String".into(),
            Ty::Unit => "()".into(),
            Ty::Value => "serde_json::Value".into(),
            Ty::Vec(t) => format!("Vec<{}>", t.display()),
            Ty::Map(t) => format!("BTreeMap<String, {}>", t.display()),
            Ty::Option(t) => format!("Option<{}>", t.display()),
            Ty::Boxed(t) => format!("Box<{}>", t.display()),
        }
    }
}

/// Generates the module source (unformatted tokens) for `tools` and the contract
/// `#[toolseal::tool]` checks against; `registry` names the file, `facade` how
/// the code names the toolseal crate.
pub(crate) fn registry(tools: &[ToolInput<'_>], registry: &str, module: &str, facade: &Facade) -> (TokenStream, Contract) {
    let (space, tools) = TypeSpace::build(tools);
    let e = Emit { facade: facade.clone(), private: facade.private() };
    let items = space.entries.iter().map(|x| types::item(&e, x));
    // A subschema the specification validator checks names its document's validator
    // (`#[toolseal(spec = __SPEC_0, ..)]`): a `static` of the module, hidden.
    let specs = space.specs.iter().map(|(_, id, source, formats)| {
        let private = &e.private;
        quote!(#[doc(hidden)] static #id: #private::LazySpec = #private::LazySpec::new(#source, #formats);)
    });
    let call_item = tool_call::emit(&e, &tools, registry);
    let contract = contract::emit(&e, &tools, registry, module);
    // Generated code lands in the user's crate, under the user's lints: `-D warnings`
    // must not fail on names and shapes that come from the registry (a key `foo` bound
    // as a local is `clippy::disallowed_names`, variants sharing a word are
    // `clippy::enum_variant_names`). Every item carries `clippy::all` (the lints
    // `cargo clippy` warns about by default), as generated code conventionally does.
    // Rustc's naming lints cannot fire: `naming` makes every type UpperCamelCase and
    // every field snake_case.
    let tokens = quote! {
        #(#specs)*
        #(#[allow(dead_code, clippy::all)] #items)*
        #[allow(dead_code, clippy::all)]
        #call_item
    };
    (tokens, contract)
}
