//! Binding a function signature to a registry tool: which tool it implements,
//! which parameter takes which argument, and what it returns. Every mismatch
//! is an error spanned on the user's own tokens.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, Ident, LitStr, Pat, Path, PathArguments, ReturnType, Signature, Type};
use toolseal_runtime::contract::{Check, Contract, ContractField, ContractTool};
use toolseal_runtime::rejection::closest;

use crate::attr::{Errors, is_ctx};

/// What one parameter of an implementation receives.
pub(crate) enum Param {
    /// The context passed to `dispatch`.
    Ctx,
    /// The whole argument struct.
    Args { ty: Type, check: CheckTrait },
    /// One argument struct field.
    Field { field: Ident, ty: Type, check: CheckTrait },
}

/// A contract [`Check`] read for emission: the trait's name, the type the registry
/// asks for (`self` standing for the generated module) and its diagnostic.
pub(crate) struct CheckTrait {
    name: Ident,
    expected: TokenStream,
    message: String,
    label: String,
    note: String,
}

/// How a method takes `self`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Receiver {
    /// An associated function (`Self::f(..)`).
    None,
    /// `&self`.
    Ref,
    /// `&mut self`.
    Mut,
    /// `self` by value.
    Value,
}

/// A function bound to one registry tool.
pub(crate) struct Binding {
    /// Its `ToolCall` variant.
    pub variant: Ident,
    /// The function.
    pub function: Ident,
    /// The parameters, in order.
    pub params: Vec<Param>,
    /// The context parameter's type.
    pub ctx: Option<Type>,
    /// The output type to check, and its contract check.
    pub output: Option<(Type, CheckTrait)>,
    /// Whether the function returns a `Result`.
    pub returns_result: bool,
    /// Whether the function is `async`.
    pub is_async: bool,
    /// How it takes `self`.
    pub receiver: Receiver,
}

/// Removes `#[ctx]` from the parameters of `sig`, returning which parameters had it.
pub(crate) fn strip_ctx(sig: &mut Signature, errors: &mut Errors) -> Vec<bool> {
    let mut flags = Vec::new();
    for input in &mut sig.inputs {
        let attrs = match input {
            FnArg::Typed(p) => &mut p.attrs,
            FnArg::Receiver(r) => &mut r.attrs,
        };
        let before = attrs.len();
        attrs.retain(|a| !is_ctx(a));
        let marked = attrs.len() != before;
        if marked && matches!(input, FnArg::Receiver(_)) {
            errors.at(input.span(), "`self` cannot be the context parameter: mark a typed parameter with `#[ctx]`");
        }
        flags.push(marked && matches!(input, FnArg::Typed(_)));
    }
    flags
}

/// Binds `sig` (already stripped of `#[ctx]`, see [`strip_ctx`]) to its tool in `contract`.
pub(crate) fn bind(sig: &Signature, ctx_flags: &[bool], name: Option<&LitStr>, contract: &Contract, outer: &mut Errors) -> Option<Binding> {
    let mut errors = Errors::default();
    let binding = bind_checked(sig, ctx_flags, name, contract, &mut errors);
    let ok = errors.is_empty();
    outer.extend(errors);
    binding.filter(|_| ok)
}

fn bind_checked(sig: &Signature, ctx_flags: &[bool], name: Option<&LitStr>, contract: &Contract, errors: &mut Errors) -> Option<Binding> {
    let (tool_name, name_span) = match name {
        Some(lit) => (lit.value(), lit.span()),
        None => (sig.ident.unraw().to_string(), sig.ident.span()),
    };
    let Some(tool) = contract.tool(&tool_name) else {
        errors.at(name_span, unknown_tool(&tool_name, contract, name.is_none()));
        return None;
    };
    let receiver = match sig.receiver() {
        None => Receiver::None,
        Some(r) if r.reference.is_none() => Receiver::Value,
        Some(r) if r.mutability.is_some() => Receiver::Mut,
        Some(_) => Receiver::Ref,
    };
    let mut ctx: Option<Type> = None;
    let mut typed = Vec::new();
    for (input, is_ctx) in sig.inputs.iter().zip(ctx_flags) {
        let FnArg::Typed(p) = input else { continue };
        if *is_ctx {
            if ctx.is_some() {
                errors.at(p.span(), "a tool takes at most one `#[ctx]` parameter");
            }
            ctx = Some((*p.ty).clone());
        }
        typed.push((p, *is_ctx));
    }
    let tool_params: Vec<&syn::PatType> = typed.iter().filter(|(_, c)| !c).map(|(p, _)| *p).collect();
    let whole = match tool_params.as_slice() {
        [only] => takes_whole_args(only, tool),
        _ => false,
    };
    let mut bound: Vec<Option<Param>> = Vec::new();
    if whole || tool.fields.is_none() {
        for p in &tool_params {
            if whole {
                match check_trait(&tool.args_check, contract) {
                    Ok(check) => bound.push(Some(Param::Args { ty: (*p.ty).clone(), check })),
                    Err(e) => {
                        errors.at(p.span(), e);
                        bound.push(None);
                    }
                }
            } else {
                errors.at(
                    p.span(),
                    format!("the arguments of tool `{}` keep undeclared keys or are not an object in `{}`: take the whole `{}` as the only parameter", tool.name, contract.registry, tool.args),
                );
                bound.push(None);
            }
        }
        if tool_params.is_empty() && tool.fields.is_none() {
            errors.at(name_span, format!("tool `{}` takes arguments: add a parameter `args: {}`", tool.name, tool.args));
        }
    } else {
        let fields = tool.fields.as_deref().unwrap_or_default();
        let mut taken = vec![false; fields.len()];
        for p in &tool_params {
            bound.push(bind_field(p, tool, fields, &mut taken, contract, &mut *errors));
        }
        let missing: Vec<String> = fields.iter().zip(&taken).filter(|(_, t)| !**t).map(|(f, _)| format!("`{}: {}`", f.rust, f.ty)).collect();
        if !missing.is_empty() {
            errors.at(
                sig.ident.span(),
                format!(
                    "`{}` does not take {} that `{}` declares for tool `{}`: add {} (optional arguments too), or take the whole `{}`",
                    sig.ident,
                    if missing.len() == 1 { "an argument" } else { "arguments" },
                    contract.registry,
                    tool.name,
                    missing.join(", "),
                    tool.args
                ),
            );
        }
    }
    let (returned, returns_result) = match &sig.output {
        ReturnType::Default => (None, false),
        ReturnType::Type(_, ty) => {
            let (inner, is_result) = result_inner(ty);
            (Some(inner.clone()), is_result)
        }
    };
    let output = match (&tool.output, returned) {
        (Some(out), Some(ty)) => match check_trait(&out.check, contract) {
            Ok(check) => Some((ty, check)),
            Err(e) => {
                errors.at(ty.span(), e);
                None
            }
        },
        (Some(out), None) => {
            errors.at(sig.ident.span(), format!("tool `{}` declares an `outputSchema` in `{}`: return `{}` (or `Result<{}, E>`)", tool.name, contract.registry, out.ty, out.ty));
            None
        }
        (None, _) => None,
    };
    let variant = match contract_ident(&tool.variant, contract) {
        Ok(v) => v,
        Err(e) => {
            errors.at(name_span, e);
            return None;
        }
    };
    if !errors.is_empty() {
        return None;
    }
    let mut params = Vec::new();
    let mut fields = bound.into_iter();
    for (_, is_ctx) in &typed {
        if *is_ctx {
            params.push(Param::Ctx);
        } else {
            params.push(fields.next().flatten()?);
        }
    }
    Some(Binding { variant, function: sig.ident.clone(), params, ctx, output, returns_result, is_async: sig.asyncness.is_some(), receiver })
}

/// Whether the one parameter `p` takes the whole argument struct rather than one field.
fn takes_whole_args(p: &syn::PatType, tool: &ContractTool) -> bool {
    let name = pat_name(&p.pat);
    let is_field = tool.fields.as_deref().is_some_and(|fs| fs.iter().any(|f| Some(unraw(&f.rust)) == name.as_deref()));
    !is_field && (last_segment(&p.ty).is_some_and(|s| s.ends_with("Args")) || tool.fields.is_none())
}

fn bind_field(p: &syn::PatType, tool: &ContractTool, fields: &[ContractField], taken: &mut [bool], contract: &Contract, errors: &mut Errors) -> Option<Param> {
    let Some(name) = pat_name(&p.pat) else {
        errors.at(p.pat.span(), "name this parameter after the argument it takes (a plain identifier), or mark it `#[ctx]`");
        return None;
    };
    let Some(i) = fields.iter().position(|f| unraw(&f.rust) == name) else {
        let declared: Vec<String> = fields.iter().map(|f| format!("`{}`", f.rust)).collect();
        let hint = match fields.iter().find(|f| f.key == name) {
            Some(f) => format!("; the registry key `{}` is the field `{}`: name the parameter `{}`", f.key, f.rust, f.rust),
            None => {
                let rust: Vec<&str> = fields.iter().map(|f| unraw(&f.rust)).collect();
                match closest(&name, rust.iter().copied(), 1).first() {
                    Some(c) => format!("; did you mean `{c}`?"),
                    None => String::new(),
                }
            }
        };
        let declared = if declared.is_empty() { "none".to_owned() } else { declared.join(", ") };
        errors.at(
            p.pat.span(),
            format!("tool `{}` declares no argument `{name}` in `{}` (H2); its arguments are {declared}{hint}. Context parameters are marked `#[ctx]`", tool.name, contract.registry),
        );
        return None;
    };
    taken[i] = true;
    let f = &fields[i];
    let declared_option = f.ty.starts_with("Option<");
    let given_option = last_segment(&p.ty).as_deref() == Some("Option");
    if declared_option != given_option {
        let why = match (f.required, f.optional) {
            (true, _) => "required (and may be null)",
            (false, true) => "optional without a default",
            (false, false) => "optional with a default, so it is never absent",
        };
        let fix = if declared_option { "take it as an `Option`" } else { "take it without `Option`" };
        errors.at(p.ty.span(), format!("argument `{}` of tool `{}` is {why} in `{}`: {fix}, `{}: {}`", f.key, tool.name, contract.registry, f.rust, f.ty));
        return None;
    }
    match (contract_ident(&f.rust, contract), check_trait(&f.check, contract)) {
        (Ok(field), Ok(check)) => Some(Param::Field { field, ty: (*p.ty).clone(), check }),
        (Err(e), _) | (_, Err(e)) => {
            errors.at(p.span(), e);
            None
        }
    }
}

fn unknown_tool(name: &str, contract: &Contract, from_fn_name: bool) -> String {
    let names: Vec<&str> = contract.tools.iter().map(|t| t.name.as_str()).collect();
    let near = closest(name, names.iter().copied(), 3);
    let hint = if !near.is_empty() {
        format!("did you mean {}?", near.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))
    } else {
        let shown: Vec<String> = names.iter().take(12).map(|n| format!("`{n}`")).collect();
        format!("its tools are {}{}", shown.join(", "), if names.len() > 12 { ", …" } else { "" })
    };
    let how = if from_fn_name { " (a tool whose name is not the function's is named with `#[tool(name = \"...\")]`)" } else { "" };
    format!("registry `{}` has no tool `{name}` (H1); {hint}{how}", contract.registry)
}

/// `T` of `Result<T, E>` (any path ending in `Result`, so aliases such as `io::Result<T>` too).
fn result_inner(ty: &Type) -> (&Type, bool) {
    if let Type::Path(p) = ty
        && let Some(last) = p.path.segments.last()
        && last.ident == "Result"
        && let PathArguments::AngleBracketed(args) = &last.arguments
        && let Some(GenericArgument::Type(inner)) = args.args.first()
    {
        return (inner, true);
    }
    (ty, false)
}

fn last_segment(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

fn pat_name(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(p) if p.subpat.is_none() => Some(p.ident.unraw().to_string()),
        _ => None,
    }
}

fn unraw(rust: &str) -> &str {
    rust.strip_prefix("r#").unwrap_or(rust)
}

/// An identifier from the contract file (`r#type` for raw ones); an error,
/// never a panic, if the file was edited into something else.
fn contract_ident(text: &str, contract: &Contract) -> Result<Ident, String> {
    let parsed = match text.strip_prefix("r#") {
        Some(raw) => syn::parse_str::<Ident>(raw).ok().map(|i| Ident::new_raw(&i.to_string(), Span::call_site())),
        None => syn::parse_str::<Ident>(text).ok(),
    };
    parsed.ok_or_else(|| format!("the contract of `{}` holds `{text}`, not a Rust identifier: rebuild to regenerate it", contract.registry))
}

/// The check `check` of `contract`, ready to emit; an error if the file was edited
/// into something that is not Rust.
fn check_trait(check: &Check, contract: &Contract) -> Result<CheckTrait, String> {
    let name = contract_ident(&check.name, contract)?;
    let expected = syn::parse_str::<Type>(&check.ty)
        .map(|t| t.to_token_stream())
        .map_err(|_| format!("the contract of `{}` holds `{}`, not a Rust type: rebuild to regenerate it", contract.registry, check.ty))?;
    Ok(CheckTrait { name, expected, message: check.message.clone(), label: check.label.clone(), note: check.note.clone() })
}

impl CheckTrait {
    /// The trait and its one impl, for the type the registry asks for in `module`:
    /// items local to the block that implements the tool, so a tool nobody
    /// implements costs no code.
    fn items(&self, module: &Path) -> TokenStream {
        let CheckTrait { name, message, label, note, .. } = self;
        let expected = in_module(self.expected.clone(), module);
        quote! {
            #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
            #[allow(non_camel_case_types)]
            trait #name {
                fn __value(value: #expected) -> Self;
            }
            impl #name for #expected {
                fn __value(value: #expected) -> Self {
                    value
                }
            }
        }
    }
}

/// `tokens` with each `self` (the contract's name for the generated module) replaced by `module`.
fn in_module(tokens: TokenStream, module: &Path) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(i) if i == "self" => module.to_token_stream(),
            TokenTree::Group(g) => {
                let mut inner = proc_macro2::Group::new(g.delimiter(), in_module(g.stream(), module));
                inner.set_span(g.span());
                TokenTree::Group(inner).into()
            }
            other => other.into(),
        })
        .collect()
}

impl Binding {
    /// The check items of every parameter and of the output (see [`CheckTrait::items`]).
    pub(crate) fn check_items(&self, module: &Path) -> TokenStream {
        let params = self.params.iter().filter_map(|p| match p {
            Param::Ctx => None,
            Param::Args { check, .. } | Param::Field { check, .. } => Some(check.items(module)),
        });
        let output = self.output.iter().map(|(_, check)| check.items(module));
        quote!(#(#params)* #(#output)*)
    }

    /// The check items and statements that check each parameter and the output
    /// against the contract; a mismatch is reported on the user's type by the
    /// registry's diagnostic.
    pub(crate) fn checks(&self, module: &Path) -> TokenStream {
        let items = self.check_items(module);
        let params = self.params.iter().filter_map(|p| match p {
            Param::Ctx => None,
            Param::Args { ty, check } | Param::Field { ty, check, .. } => Some(check_tokens(ty, &check.name)),
        });
        let output = self.output_check();
        quote!(#items #(#params)* #output)
    }

    /// The check of the output type alone (the arguments are checked by
    /// [`Binding::call_args`]), after [`Binding::check_items`].
    pub(crate) fn output_check(&self) -> TokenStream {
        let output = self.output.iter().map(|(ty, check)| check_tokens(ty, &check.name));
        quote!(#(#output)*)
    }

    /// The argument expressions for calling the implementation from `args` (and
    /// `ctx`), after [`Binding::check_items`].
    pub(crate) fn call_args(&self) -> Vec<TokenStream> {
        self.params
            .iter()
            .map(|p| match p {
                Param::Ctx => quote!(ctx),
                Param::Args { ty, check } => {
                    let check = &check.name;
                    quote_spanned!(ty.span()=> <#ty as #check>::__value(args))
                }
                Param::Field { field, ty, check } => {
                    let check = &check.name;
                    quote_spanned!(ty.span()=> <#ty as #check>::__value(args.#field))
                }
            })
            .collect()
    }
}

fn check_tokens(ty: &Type, check: &Ident) -> TokenStream {
    quote_spanned!(ty.span()=> let _ = <#ty as #check>::__value;)
}
