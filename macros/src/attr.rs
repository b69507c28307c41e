//! Parsing `#[tool(..)]`, `#[toolset(..)]` and `#[ctx]`.

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::{Attribute, LitStr, Path, Type};

/// Errors gathered over one expansion, reported together.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    /// Adds `e`.
    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    /// Adds an error at `span`.
    pub(crate) fn at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Adds everything `other` gathered.
    pub(crate) fn extend(&mut self, other: Errors) {
        if let Some(e) = other.0 {
            self.push(e);
        }
    }

    /// Whether nothing was reported.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// `compile_error!`s for everything reported.
    pub(crate) fn to_tokens(&self) -> TokenStream {
        self.0.as_ref().map(syn::Error::to_compile_error).unwrap_or_default()
    }
}

/// The arguments of `#[tool(..)]` and `#[toolset(..)]`.
#[derive(Default)]
pub(crate) struct Args {
    /// `name = "get-sum"`: the registry name, when it is not the function's (`#[tool]`).
    pub name: Option<LitStr>,
    /// `registry = "bank"`: the registry module.
    pub registry: Option<LitStr>,
    /// `module = crate::tools::bank`: where that module was included.
    pub module: Option<Path>,
    /// `error = MyError`: the error type of `dispatch` (`#[toolset]`).
    pub error: Option<Type>,
}

/// The keys `#[tool(..)]` takes.
pub(crate) const TOOL: &[&str] = &["name", "registry", "module"];
/// The keys `#[toolset(..)]` takes.
pub(crate) const TOOLSET: &[&str] = &["registry", "module", "error"];

/// Parses `key = value` arguments of `#[attr(..)]`, accepting only `keys`.
pub(crate) fn parse_args(tokens: TokenStream, attr: &str, keys: &[&str], errors: &mut Errors) -> Args {
    let mut args = Args::default();
    let parser = syn::meta::parser(|meta| {
        let key = meta.path.get_ident().map(ToString::to_string).filter(|k| keys.contains(&k.as_str()));
        match key.as_deref() {
            Some("name") => args.name = Some(meta.value()?.parse()?),
            Some("registry") => args.registry = Some(meta.value()?.parse()?),
            Some("module") => args.module = Some(meta.value()?.parse()?),
            Some("error") => args.error = Some(meta.value()?.parse()?),
            _ => {
                let expected: Vec<String> = keys.iter().map(|k| format!("`{k} = ...`")).collect();
                return Err(meta.error(format!("unknown `#[{attr}]` argument; expected {}", expected.join(", "))));
            }
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, tokens) {
        errors.push(e);
    }
    args
}

/// Whether `attr` is `#[tool]` / `#[toolseal::tool]` (inside a toolset).
pub(crate) fn is_tool(attr: &Attribute) -> bool {
    is_named(attr, "tool")
}

/// Whether `attr` is `#[ctx]` / `#[toolseal::ctx]` (a context parameter).
pub(crate) fn is_ctx(attr: &Attribute) -> bool {
    is_named(attr, "ctx")
}

fn is_named(attr: &Attribute, name: &str) -> bool {
    let segments: Vec<String> = attr.path().segments.iter().map(|s| s.ident.to_string()).collect();
    match segments.as_slice() {
        [one] => one == name,
        [krate, one] => krate == "toolseal" && one == name,
        _ => false,
    }
}

/// The arguments of an attribute found inside a toolset (`#[tool]` or `#[tool(..)]`).
pub(crate) fn inner_tool_args(attr: &Attribute, errors: &mut Errors) -> Args {
    match &attr.meta {
        syn::Meta::Path(_) => Args::default(),
        syn::Meta::List(list) => parse_args(list.tokens.clone(), "tool", TOOL, errors),
        syn::Meta::NameValue(nv) => {
            errors.at(nv.span(), "write `#[tool]` or `#[tool(name = \"...\")]`");
            Args::default()
        }
    }
}

/// The registry a macro checks against: the contract's module name, and the
/// path where the generated module was included.
pub(crate) struct Target {
    /// Module name as given to `toolseal_build::Config::module`.
    pub name: String,
    /// Path of the included module (default `crate::<name>`).
    pub path: Path,
    /// Where to report problems with it.
    pub span: Span,
}

/// The registry named by `registry` / `module`, defaulting to `registry` at `crate::registry`.
pub(crate) fn target(registry: Option<&LitStr>, module: Option<&Path>, errors: &mut Errors) -> Option<Target> {
    let (name, span) = match registry {
        Some(lit) => (lit.value(), lit.span()),
        None => (toolseal_runtime::contract::DEFAULT_MODULE.to_owned(), module.map_or_else(Span::call_site, |m| m.span())),
    };
    let valid = !name.is_empty() && name.split('.').all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
    if !valid {
        errors.at(span, format!("registry module {name:?} must be ASCII letters, digits, `_` or `-` (`deployment.server` for a server of a deployment), as given to `Config::module`"));
        return None;
    }
    let path = match module {
        Some(p) => p.clone(),
        None => {
            // `bank` is at `crate::bank`; server `fs` of deployment `mcp` at `crate::mcp::fs`.
            let mut segments = vec![syn::PathSegment::from(syn::Ident::new("crate", span))];
            for part in name.split('.') {
                match syn::parse_str::<syn::Ident>(&part.replace('-', "_")) {
                    Ok(ident) => segments.push(syn::PathSegment::from(syn::Ident::new(&ident.to_string(), span))),
                    Err(_) => {
                        errors.at(span, format!("registry module {name:?} is not a Rust path: say where it is included with `module = path::to::it`"));
                        return None;
                    }
                }
            }
            syn::Path { leading_colon: None, segments: segments.into_iter().collect() }
        }
    };
    Some(Target { name, path, span })
}
