//! The sealed `ToolCall`: one variant per tool, each with its tool's canonical
//! definition; `#[derive(toolseal::ToolSet)]` resolves calls by name and gives
//! the registry's metadata and the tool definitions to show a model.

use proc_macro2::TokenStream;
use quote::quote;
use toolseal_runtime::registry::ToolDef;

use super::Emit;
use super::model::ToolEntry;
use crate::docs::{doc_attr, prose};

/// The `ToolCall` enum.
pub(super) fn emit(e: &Emit, tools: &[ToolEntry<'_>], registry: &str) -> TokenStream {
    let derive = e.facade.root("ToolSet");
    let krate = e.facade.custom().map(|path| quote!(crate = #path,));
    let variants = tools.iter().map(|t| {
        let docs = doc_attr(t.def.description.as_deref().map(prose).or_else(|| Some(format!("The `{}` tool.", t.def.name))));
        let (variant, args, tool) = (&t.variant, &t.args, tool_attr(t.def, t.quarantined));
        quote!(#docs #[toolseal(#tool)] #variant(#args))
    });
    quote! {
        /// The sealed set of calls to this registry's tools: one variant per tool, nothing else.
        /// Build one with [`ToolCall::from_json`]; whatever the registry does not declare is rejected.
        #[derive(Debug, Clone, PartialEq, #derive)]
        #[toolseal(#krate registry = #registry)]
        pub enum ToolCall {
            #(#variants,)*
        }
    }
}

/// A tool's `#[toolseal(..)]`: its canonical definition (a raw string, as written),
/// its `title` and why it is quarantined, when it is.
fn tool_attr(d: &ToolDef, quarantined: Option<&str>) -> TokenStream {
    let mut out = quote!(definition = );
    out.extend(raw_string(&d.canonical()));
    if let Some(title) = &d.title {
        out.extend(quote!(, title = #title));
    }
    if let Some(why) = quarantined {
        out.extend(quote!(, quarantined = #why));
    }
    out
}

/// `text` as a raw string literal, with as many `#`s as it needs.
fn raw_string(text: &str) -> TokenStream {
    let mut hashes = String::from("#");
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    match format!("r{hashes}\"{text}\"{hashes}").parse::<TokenStream>() {
        Ok(t) => t,
        // A text a raw string cannot hold (a lone CR): an escaped literal.
        Err(_) => quote!(#text),
    }
}
