//! What `#[toolseal::tool]` checks a function against: for each argument,
//! argument type and output type, the type the registry asks for and the
//! diagnostic that reports any other type in the registry's words. The macro
//! emits each check beside the function that implements the tool; nothing is
//! emitted here, so a tool no function implements costs no code.

use super::Emit;
use super::model::{Presence, ToolEntry, Ty};
use toolseal_runtime::contract::{Check, Contract, ContractField, ContractOutput, ContractTool};

/// The contract `tools` are implemented against.
pub(super) fn emit(e: &Emit, tools: &[ToolEntry<'_>], registry: &str, module: &str) -> Contract {
    let check = |name: String, ty: &Ty, message: String, label: String, note: String| Check { name, ty: ty.contract_tokens(&e.private).to_string(), message, label, note };
    let shown_registry = escape(registry);
    let contract_tools = tools
        .iter()
        .map(|t| {
            let (name, variant, args) = (escape(&t.def.name), t.variant.to_string(), t.args.to_string());
            let args_check = check(
                format!("{variant}__args"),
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
                        let (ty, rust) = (f.field_ty(), f.rust.to_string());
                        let shown = ty.display();
                        let (required, optional) = (matches!(f.presence, Presence::Required), matches!(f.presence, Presence::Optional));
                        let presence = match f.presence {
                            Presence::Required => "a required argument",
                            Presence::Optional => "an optional argument, so the field is an `Option`",
                            Presence::Default(_) => "an optional argument with a default, so the field is never absent",
                        };
                        let check = check(
                            format!("{variant}__f{i}"),
                            &ty,
                            format!("`{{Self}}` is not the type of argument `{}` of tool `{name}`", escape(&f.key)),
                            format!("expected `{}`", escape(&shown)),
                            format!("`{shown_registry}` declares `{}` as {presence}: take `{rust}: {}` (or the whole `{args}`)", escape(&f.key), escape(&shown)),
                        );
                        ContractField { key: f.key.clone(), rust, ty: shown, optional, required, check }
                    })
                    .collect()
            });
            let output = t.output.as_ref().map(|out| {
                let out_name = out.to_string();
                let check = check(
                    format!("{variant}__output"),
                    &Ty::Named(out.clone()),
                    format!("`{{Self}}` is not the output type of tool `{name}`"),
                    format!("expected `{out_name}`"),
                    format!("`{shown_registry}` declares an `outputSchema` for `{name}`: return `{out_name}` or `Result<{out_name}, E>`"),
                );
                ContractOutput { ty: out_name, check }
            });
            ContractTool { name: t.def.name.clone(), variant, args, args_check, fields, output }
        })
        .collect();
    Contract { registry: registry.to_owned(), module: module.to_owned(), tools: contract_tools }
}

/// Braces are placeholders in diagnostic messages; JSON names may contain them.
fn escape(s: &str) -> String {
    s.replace('{', "{{").replace('}', "}}")
}
