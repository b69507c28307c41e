//! Expansion of `#[tool]` and `#[toolset]`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{ImplItem, ItemFn, ItemImpl};
use toolseal_runtime::contract::{self, Contract, ContractError};

use crate::attr::{self, Errors, Target};
use crate::bind::{self, Binding, Receiver};

/// The contract of `target`, or an error at its span.
fn load(target: &Target, errors: &mut Errors) -> Option<Arc<Contract>> {
    let loaded = contract::locate(&target.name).and_then(|path| {
        let text = contract::read_text(&target.name, &path)?;
        cached(&path, text, |text| contract::parse(&path, text))
    });
    loaded.map_err(|e| errors.at(target.span, e)).ok()
}

/// The contracts parsed so far by this compiler process, by file, with the text each was parsed from.
type Cache = HashMap<PathBuf, (String, Arc<Contract>)>;

/// The contract in the file at `path`, whose text is `text`, parsed once per
/// compiler process while the text stays the same: a crate with a `#[tool]` per
/// tool of a large registry does not parse its contract once per tool, and a
/// long-lived macro server (an IDE's) parses it again when a rebuild rewrites it.
fn cached(path: &Path, text: String, parse: impl FnOnce(&str) -> Result<Contract, ContractError>) -> Result<Arc<Contract>, ContractError> {
    static CACHE: Mutex<Option<Cache>> = Mutex::new(None);
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    let cache = cache.get_or_insert_with(HashMap::new);
    if let Some((read, contract)) = cache.get(path)
        && *read == text
    {
        return Ok(contract.clone());
    }
    let contract = Arc::new(parse(&text)?);
    cache.insert(path.to_owned(), (text, contract.clone()));
    Ok(contract)
}

/// `#[tool]`: the function unchanged but for `#[ctx]` markers, plus checks of
/// each parameter and the output against the contract at the top of its body.
pub(crate) fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let args = attr::parse_args(attr, "tool", attr::TOOL, &mut errors);
    let attr_ok = errors.is_empty();
    let Ok(mut func) = syn::parse2::<ItemFn>(item.clone()) else {
        errors.at(Span::call_site(), "`#[tool]` goes on a function or a method with a body");
        let errors = errors.to_tokens();
        return quote!(#errors #item);
    };
    let flags = bind::strip_ctx(&mut func.sig, &mut errors);
    let target = attr::target(args.registry.as_ref(), args.module.as_ref(), &mut errors);
    if attr_ok
        && let Some(target) = target
        && let Some(contract) = load(&target, &mut errors)
        && let Some(binding) = bind::bind(&func.sig, &flags, args.name.as_ref(), &contract, &mut errors)
    {
        let checks = binding.checks(&target.path);
        match syn::parse2::<syn::Block>(quote!({ #checks })) {
            Ok(block) => drop(func.block.stmts.splice(0..0, block.stmts)),
            Err(e) => errors.at(e.span(), "this type cannot be checked against the registry (`impl Trait`?): write the generated type"),
        }
    }
    let errors = errors.to_tokens();
    quote!(#errors #func)
}

/// `#[toolset]`: the impl with its `#[tool]` markers removed and an exhaustive
/// `dispatch` added.
pub(crate) fn toolset(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let args = attr::parse_args(attr, "toolset", attr::TOOLSET, &mut errors);
    let Ok(mut imp) = syn::parse2::<ItemImpl>(item.clone()) else {
        errors.at(Span::call_site(), "`#[toolset]` goes on an inherent impl block: `#[toolset] impl Tools { #[tool] fn ... }`");
        let errors = errors.to_tokens();
        return quote!(#errors #item);
    };
    if let Some((_, path, _)) = &imp.trait_ {
        errors.at(path.span(), "`#[toolset]` goes on an inherent impl (`impl Tools { ... }`), not on a trait impl");
        let errors = errors.to_tokens();
        return quote!(#errors #imp);
    }
    let target = attr::target(args.registry.as_ref(), args.module.as_ref(), &mut errors);
    let contract = target.as_ref().and_then(|t| load(t, &mut errors));
    let mut bindings: Vec<Binding> = Vec::new();
    let mut claimed: Vec<(String, syn::Ident)> = Vec::new();
    for item in &mut imp.items {
        let ImplItem::Fn(f) = item else { continue };
        let (markers, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut f.attrs).into_iter().partition(attr::is_tool);
        f.attrs = rest;
        let Some(marker) = markers.first() else { continue };
        if let Some(extra) = markers.get(1) {
            errors.at(extra.span(), "one `#[tool]` per method");
        }
        let flags = bind::strip_ctx(&mut f.sig, &mut errors);
        let mut attr_errors = Errors::default();
        let inner = attr::inner_tool_args(marker, &mut attr_errors);
        let attr_ok = attr_errors.is_empty();
        errors.extend(attr_errors);
        for (key, span) in [("registry", inner.registry.as_ref().map(|r| r.span())), ("module", inner.module.as_ref().map(|m| m.span()))] {
            if let Some(span) = span {
                errors.at(span, format!("a toolset implements one registry: set `{key}` on `#[toolset(..)]`, not on its methods"));
            }
        }
        let Some(contract) = contract.as_ref().filter(|_| attr_ok) else { continue };
        let name = inner.name.as_ref().map_or_else(|| f.sig.ident.unraw().to_string(), |n| n.value());
        if contract.tool(&name).is_some() {
            if let Some((_, first)) = claimed.iter().find(|(n, _)| *n == name) {
                let span = inner.name.as_ref().map_or_else(|| f.sig.ident.span(), |n| n.span());
                errors.at(span, format!("tool `{name}` is implemented twice in this toolset, by `{first}` and by `{}`: keep one", f.sig.ident));
                continue;
            }
            claimed.push((name, f.sig.ident.clone()));
        }
        if let Some(b) = bind::bind(&f.sig, &flags, inner.name.as_ref(), contract, &mut errors) {
            if b.receiver == Receiver::Value {
                errors.at(f.sig.inputs.span(), "a tool method takes `&self` or `&mut self`, not `self`");
            }
            bindings.push(b);
        }
    }
    let (Some(target), Some(contract)) = (target, contract) else {
        let errors = errors.to_tokens();
        return quote!(#errors #imp);
    };
    let missing: Vec<String> = contract.tools.iter().filter(|t| !claimed.iter().any(|(n, _)| *n == t.name)).map(|t| format!("`{}`", t.name)).collect();
    if !missing.is_empty() {
        errors.at(
            imp.self_ty.span(),
            format!("this toolset implements no `#[tool]` for {} of registry `{}`: `dispatch` must cover every tool; add a method per tool", missing.join(", "), contract.registry),
        );
    }
    let ctx = bindings.iter().find_map(|b| b.ctx.clone());
    if let Some(first) = &ctx {
        for b in &bindings {
            if let Some(ty) = &b.ctx
                && shown(ty) != shown(first)
            {
                errors.at(ty.span(), format!("every `#[ctx]` parameter of a toolset has one type, `{}`: `dispatch` passes the same context to each tool", shown(first)));
            }
        }
    }
    let dispatch = dispatch(&target, &args, &bindings, ctx.as_ref(), errors.is_empty());
    match syn::parse2::<ImplItem>(dispatch) {
        Ok(item) => imp.items.push(item),
        Err(e) => errors.push(e),
    }
    let errors = errors.to_tokens();
    quote!(#errors #imp)
}

/// `dispatch`: an exhaustive `match` on the sealed `ToolCall`, or a stub with
/// the same signature when the toolset has errors (so callers type-check).
fn dispatch(target: &Target, args: &attr::Args, bindings: &[Binding], ctx: Option<&syn::Type>, complete: bool) -> TokenStream {
    let m = &target.path;
    let rt = quote!(::toolseal::__private);
    let error = match &args.error {
        Some(ty) => ty.to_token_stream(),
        None => quote!(::std::boxed::Box<dyn ::std::error::Error + ::core::marker::Send + ::core::marker::Sync>),
    };
    let receiver = if bindings.iter().any(|b| b.receiver == Receiver::Mut) { quote!(&mut self) } else { quote!(&self) };
    let asyncness = if bindings.iter().any(|b| b.is_async) { quote!(async) } else { TokenStream::new() };
    let ctx_param = ctx.map(|ty| quote!(, ctx: #ty));
    let body = if complete {
        let arms = bindings.iter().map(|b| {
            let variant = &b.variant;
            let function = &b.function;
            let callee = if b.receiver == Receiver::None { quote!(Self::#function) } else { quote!(self.#function) };
            let checks = b.check_items(m);
            let call_args = b.call_args();
            let awaited = if b.is_async { quote!(.await) } else { TokenStream::new() };
            let output_check = b.output_check();
            let value = if b.returns_result {
                quote! {
                    match out {
                        ::core::result::Result::Ok(value) => #rt::output_value(&value),
                        ::core::result::Result::Err(e) => ::core::result::Result::Err(#rt::DispatchError::Tool(::core::convert::Into::into(e))),
                    }
                }
            } else {
                quote!(#rt::output_value(&out))
            };
            quote! {
                #m::ToolCall::#variant(args) => {
                    #checks
                    let _ = &args;
                    #output_check
                    let out = #callee(#(#call_args),*)#awaited;
                    #value
                }
            }
        });
        quote! {
            match call {
                #(#arms)*
            }
        }
    } else {
        quote! {
            let _ = call;
            ::core::unreachable!("toolseal: this #[toolset] failed to compile")
        }
    };
    let ctx_use = ctx.map(|_| quote!(let _ = &ctx;));
    quote! {
        /// Runs the implementation of `call`'s tool: an exhaustive `match` on the
        /// registry's sealed `ToolCall`, generated by `#[toolseal::toolset]`. The
        /// output is serialized to JSON; a tool's error is kept as `DispatchError::Tool`.
        pub #asyncness fn dispatch(#receiver, call: #m::ToolCall #ctx_param) -> ::core::result::Result<#rt::serde_json::Value, #rt::DispatchError<#error>> {
            #ctx_use
            #body
        }
    }
}

/// A type as written, without the token spacing (`&A`, not `& A`).
fn shown(ty: &syn::Type) -> String {
    let text = ty.to_token_stream().to_string();
    text.replace("& ", "&").replace(" :: ", "::").replace(" <", "<").replace("< ", "<").replace(" >", ">").replace(" ,", ",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contract(registry: &str) -> Contract {
        Contract { registry: registry.to_owned(), module: "m".to_owned(), tools: Vec::new() }
    }

    #[test]
    fn a_contract_is_parsed_once_while_its_text_is_unchanged() {
        let path = Path::new("/nowhere/m.contract.json");
        let first = cached(path, "one".to_owned(), |_| Ok(contract("a"))).expect("parsed");
        let again = cached(path, "one".to_owned(), |_| panic!("unchanged text is not parsed again")).expect("cached");
        assert!(Arc::ptr_eq(&first, &again));
        let changed = cached(path, "onf".to_owned(), |_| Ok(contract("b"))).expect("parsed again");
        assert_eq!(changed.registry, "b", "a rewritten file is parsed again, even at the same size and time");
        let other = Path::new("/nowhere/n.contract.json");
        let e = cached(other, "bad".to_owned(), |_| Err(ContractError::NoBuildScript { module: "n".to_owned() })).expect_err("refused");
        assert!(e.to_string().contains("no build script"), "{e}");
        assert!(cached(other, "bad".to_owned(), |_| Ok(contract("c"))).is_ok(), "a failed parse is not cached");
    }
}
