//! What `#[toolseal::tool]` checks a function against: one trait per argument,
//! argument type and output type, implemented by exactly the generated type and
//! reporting any other type in the registry's words; and the contract file the
//! macro reads to know them.

use proc_macro2::TokenStream;
use quote::quote;

use super::Emit;
use super::model::{Presence, ToolEntry, Ty};
use crate::naming::ident;
use toolseal_runtime::contract::{Contract, ContractField, ContractOutput, ContractTool};

/// The `__contract` items for `tools` and the contract they implement.
pub(super) fn emit(e: &Emit, tools: &[ToolEntry<'_>], registry: &str, module: &str) -> (Vec<TokenStream>, Contract) {
    let mut checks = Vec::new();
    let mut check = |name: &str, ty: &Ty, message: String, label: String, note: String| checks.push(check_trait(name, &ty.tokens(&e.private), &message, &label, &note));
    let shown_registry = escape(registry);
    let contract_tools = tools
        .iter()
        .map(|t| {
            let (name, variant, args) = (escape(&t.def.name), t.variant.to_string(), t.args.to_string());
            let args_check = format!("{variant}__args");
            check(
                &args_check,
                &Ty::Named(t.args.clone()),
                format!("`{{Self}}` is not the argument type of tool `{name}`"),
                format!("expected `{args}`"),
                format!("`{shown_registry}` generates `{args}` for the arguments of `{name}`"),
            );
            let fields = t.fields.as_ref().map(|fields| {
                fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let field_check = format!("{variant}__f{i}");
                        let (ty, rust) = (f.field_ty(), f.rust.to_string());
                        let shown = ty.display();
                        let (required, optional) = (matches!(f.presence, Presence::Required), matches!(f.presence, Presence::Optional));
                        let presence = match f.presence {
                            Presence::Required => "a required argument",
                            Presence::Optional => "an optional argument, so the field is an `Option`",
                            Presence::Default(_) => "an optional argument with a default, so the field is never absent",
                        };
                        check(
                            &field_check,
                            &ty,
                            format!("`{{Self}}` is not the type of argument `{}` of tool `{name}`", escape(&f.key)),
                            format!("expected `{}`", escape(&shown)),
                            format!("`{shown_registry}` declares `{}` as {presence}: take `{rust}: {}` (or the whole `{args}`)", escape(&f.key), escape(&shown)),
                        );
                        ContractField { key: f.key.clone(), rust, ty: shown, optional, required, check: field_check }
                    })
                    .collect()
            });
            let output = t.output.as_ref().map(|out| {
                let (out_check, out_name) = (format!("{variant}__output"), out.to_string());
                check(
                    &out_check,
                    &Ty::Named(out.clone()),
                    format!("`{{Self}}` is not the output type of tool `{name}`"),
                    format!("expected `{out_name}`"),
                    format!("`{shown_registry}` declares an `outputSchema` for `{name}`: return `{out_name}` or `Result<{out_name}, E>`"),
                );
                ContractOutput { ty: out_name, check: out_check }
            });
            ContractTool { name: t.def.name.clone(), variant, args, args_check, fields, output }
        })
        .collect();
    (checks, Contract { registry: registry.to_owned(), module: module.to_owned(), tools: contract_tools })
}

/// A `__contract` trait implemented by exactly `ty`, reporting any other type
/// with the registry's words.
fn check_trait(name: &str, ty: &TokenStream, message: &str, label: &str, note: &str) -> TokenStream {
    let id = ident(name);
    quote! {
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #id {
            fn __value(value: #ty) -> Self;
        }
        impl #id for #ty {
            fn __value(value: #ty) -> Self {
                value
            }
        }
    }
}

/// Braces are placeholders in diagnostic messages; JSON names may contain them.
fn escape(s: &str) -> String {
    s.replace('{', "{{").replace('}', "}}")
}
