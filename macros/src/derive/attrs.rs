//! `#[toolseal(..)]` on a type deriving `toolseal::Args`, its fields and its variants.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, ExprUnary, Lit, LitStr, UnOp};
use toolseal_runtime::check::Format;
use toolseal_runtime::generated::description_from_docs;
use toolseal_runtime::pattern::Pattern;

use crate::attr::Errors;

/// Which value a constraint applies to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum RuleKind {
    /// `String`: `min_length`, `max_length`, `pattern`, `format`.
    String,
    /// `i64`, `u64`, `f64`: `minimum`, `maximum`, `exclusive_minimum`, `exclusive_maximum`, `multiple_of`.
    Number,
    /// `Vec<T>`: `min_items`, `max_items`, `unique_items`, `untyped`.
    Array,
}

impl RuleKind {
    fn keys(self) -> &'static str {
        match self {
            RuleKind::String => "`min_length`, `max_length`, `pattern`, `format`",
            RuleKind::Number => "`minimum`, `maximum`, `exclusive_minimum`, `exclusive_maximum`, `multiple_of`",
            RuleKind::Array => "`min_items`, `max_items`, `unique_items`, `untyped`",
        }
    }
}

/// Constraints of one value: calls on the builder of the runtime's table for it
/// (`StringType`, `NumberType<T>`, `ArrayType<T>`).
#[derive(Default)]
pub(crate) struct Rule {
    /// `.name(value)` calls, in the order written (`format`, `unique`, `untyped` among them).
    pub setters: Vec<TokenStream>,
    /// `pattern = "…"`, each compiled once here so that a bad one fails the build.
    pub patterns: Vec<LitStr>,
    /// Each key written: the kind it asks for, where, and its count where it takes one.
    pub given: Vec<Given>,
}

/// One constraint key as written.
pub(crate) struct Given {
    key: String,
    kind: RuleKind,
    span: Span,
    count: Option<u64>,
}

impl Rule {
    /// Whether no constraint was written.
    pub(crate) fn is_empty(&self) -> bool {
        self.given.is_empty()
    }

    /// The count given to `key` (`min_items = 2`).
    pub(crate) fn count(&self, key: &str) -> Option<u64> {
        self.given.iter().find(|g| g.key == key).and_then(|g| g.count)
    }

    /// Whether `key` was written.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.given.iter().any(|g| g.key == key)
    }

    /// Reports each key that does not apply to a value of kind `kind` (`None`: no table applies).
    pub(crate) fn check_kind(&self, kind: Option<RuleKind>, ty: &str, errors: &mut Errors) {
        for Given { kind: k, span, .. } in &self.given {
            if Some(*k) != kind {
                let fits = match kind {
                    Some(kind) => format!("`{ty}` takes {}", kind.keys()),
                    None => format!("`{ty}` takes none: constraints apply to `String`, `i64`, `u64`, `f64` and `Vec<T>`"),
                };
                errors.at(
                    *span,
                    format!(
                        "this constraint is for {} values; {fits}",
                        match k {
                            RuleKind::String => "string",
                            RuleKind::Number => "number",
                            RuleKind::Array => "array",
                        }
                    ),
                );
            }
        }
    }

    /// Parses `meta` if it is a constraint; `Ok(false)` if it is some other key.
    fn parse(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
        let Some(key) = meta.path.get_ident().map(ToString::to_string) else { return Ok(false) };
        let span = meta.path.span();
        let mut count = None;
        let kind = match key.as_str() {
            "min_length" | "max_length" | "min_items" | "max_items" => {
                let n: u64 = meta.value()?.parse::<syn::LitInt>()?.base10_parse()?;
                count = Some(n);
                let (name, n) = (format_ident!("{key}"), Literal::u64_unsuffixed(n));
                self.setters.push(quote!(.#name(#n)));
                if key.ends_with("length") { RuleKind::String } else { RuleKind::Array }
            }
            "minimum" | "maximum" | "exclusive_minimum" | "exclusive_maximum" | "multiple_of" => {
                let e = meta.value()?.parse::<Expr>()?;
                let x = number(&e)?;
                if !x.is_finite() || (key == "multiple_of" && x <= 0.0) {
                    return Err(syn::Error::new(e.span(), format!("`{key}` is a finite number{}", if key == "multiple_of" { " above 0" } else { "" })));
                }
                let (name, x) = (format_ident!("{key}"), Literal::f64_unsuffixed(x));
                self.setters.push(quote!(.#name(#x)));
                RuleKind::Number
            }
            "pattern" => {
                let source: LitStr = meta.value()?.parse()?;
                if let Err(e) = Pattern::new(&source.value()) {
                    return Err(syn::Error::new(source.span(), format!("this pattern does not compile: {e}")));
                }
                self.patterns.push(source);
                RuleKind::String
            }
            "format" => {
                let name: LitStr = meta.value()?.parse()?;
                let Some(format) = Format::from_name(&name.value()) else {
                    let known: Vec<String> = Format::ALL.iter().map(|(n, _)| format!("`{n}`")).collect();
                    return Err(syn::Error::new(name.span(), format!("toolseal enforces no format {:?}; it enforces {}", name.value(), known.join(", "))));
                };
                let variant = format_ident!("{format:?}");
                self.setters.push(quote!(.format(__toolseal::Format::#variant)));
                RuleKind::String
            }
            "unique_items" => {
                self.setters.push(quote!(.unique()));
                RuleKind::Array
            }
            "untyped" => {
                self.setters.push(quote!(.untyped()));
                RuleKind::Array
            }
            _ => return Ok(false),
        };
        self.given.push(Given { key, kind, span, count });
        Ok(true)
    }
}

/// A number literal (`-5`, `0.5`, `10000`) as the `f64` the tables hold.
fn number(e: &Expr) -> syn::Result<f64> {
    match e {
        Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) => i.base10_parse::<f64>(),
        Expr::Lit(ExprLit { lit: Lit::Float(f), .. }) => f.base10_parse::<f64>(),
        Expr::Unary(ExprUnary { op: UnOp::Neg(_), expr, .. }) => number(expr).map(|x| -x),
        _ => Err(syn::Error::new(e.span(), "expected a number literal")),
    }
}

/// The description of an item: its docs (see [`description_from_docs`]) unless
/// `description = "…"` names it or `undescribed` says it has none.
#[derive(Default)]
pub(crate) enum Description {
    /// Read from the docs.
    #[default]
    FromDocs,
    /// `description = "…"`.
    Given(LitStr),
    /// `undescribed`.
    None,
}

impl Description {
    /// The description of the item whose attributes are `attrs`.
    pub(crate) fn text(&self, attrs: &[Attribute]) -> Option<String> {
        match self {
            Description::FromDocs => description_from_docs(doc_strings(attrs).iter().map(String::as_str)),
            Description::Given(d) => Some(d.value()),
            Description::None => None,
        }
    }
}

fn doc_strings(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// A value table no constraint says, on a newtype over `serde_json::Value`.
pub(crate) enum ValueTable {
    /// `values = ["1", "\"a\"", "null"]`: an `enum` (a `const` with `const`) of JSON texts.
    Values(Vec<LitStr>),
    /// `never`: no value is allowed (`false`, `not: {}`).
    Never,
    /// `quarantined = "problem", tool = "name"`: the tool's schema cannot be enforced.
    Quarantined { problem: LitStr, tool: Option<LitStr> },
    /// `spec = STATIC, pointer = "…", schema = "…"`: a subschema the specification validator checks.
    Spec { spec: syn::Path, pointer: Option<LitStr>, schema: Option<LitStr> },
}

/// The constraint keys (see [`Rule`]).
pub(crate) const CONSTRAINTS: &[&str] =
    &["min_length", "max_length", "pattern", "format", "minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "multiple_of", "min_items", "max_items", "unique_items", "untyped"];

/// Reports each key of `keys` that is not among `allowed` (nor a constraint, with `constraints`), at its span.
pub(crate) fn only(keys: &[(String, Span)], allowed: &[&str], constraints: bool, on: &str, errors: &mut Errors) {
    for (key, span) in keys {
        let fits = allowed.contains(&key.as_str()) || (constraints && CONSTRAINTS.contains(&key.as_str()));
        if !fits {
            errors.at(*span, format!("`{key}` does not apply to {on}"));
        }
    }
}

/// The keys written in `meta`, each with its span.
fn record(keys: &mut Vec<(String, Span)>, meta: &ParseNestedMeta<'_>) {
    keys.push((meta.path.get_ident().map(ToString::to_string).unwrap_or_default(), meta.path.span()));
}

/// `#[toolseal(..)]` on the type.
#[derive(Default)]
pub(crate) struct Container {
    /// Every key written, with its span.
    pub keys: Vec<(String, Span)>,
    /// `crate = "path"`: how the code names the `toolseal` crate (default `::toolseal`).
    pub krate: Option<syn::Path>,
    /// The type's description.
    pub description: Description,
    /// `min_properties = N` (a struct).
    pub min_properties: Option<u64>,
    /// `max_properties = N` (a struct).
    pub max_properties: Option<u64>,
    /// `const`: an enum of one value is a `const` rather than an `enum`.
    pub is_const: bool,
    /// `one_of`: a union whose value must fit exactly one option (`anyOf` otherwise).
    pub one_of: bool,
    /// `expected = "…"`: what a union's rejection says it expected.
    pub expected: Option<LitStr>,
    /// `tuple`: a tuple struct is an array's `prefixItems`, not a newtype.
    pub tuple: bool,
    /// A newtype over `serde_json::Value`: its table.
    pub value_table: Option<ValueTable>,
    /// The value's constraints (a newtype).
    pub rule: Rule,
}

/// `#[toolseal(..)]` on a field.
#[derive(Default)]
pub(crate) struct Field {
    /// Every key written, with its span.
    pub keys: Vec<(String, Span)>,
    /// `rename = "key"`: the JSON key, when it is not the field's name.
    pub rename: Option<LitStr>,
    /// `default = expr`: the value when the key is absent.
    pub default: Option<Expr>,
    /// `required`: an `Option` field whose key must be present (its value may be null).
    pub required: bool,
    /// `rest`: a tuple's last field, the elements after its prefix.
    pub rest: bool,
    /// `flatten`: a map field holding the keys beyond the declared ones.
    pub flatten: bool,
    /// `require = "key"` (on the `flatten` field): a key the object must have among them.
    pub require: Vec<LitStr>,
    /// `any` (on the `flatten` field): the schema shows any value for them.
    pub any: bool,
    /// The field's description (with constraints only).
    pub description: Description,
    /// The value's constraints.
    pub rule: Rule,
}

/// `#[toolseal(..)]` on a variant.
#[derive(Default)]
pub(crate) struct Variant {
    /// `rename = "value"`: the string, when it is not the variant's name.
    pub rename: Option<LitStr>,
}

/// Calls `each` on every argument of every `#[toolseal(..)]` in `attrs`, gathering the errors.
pub(crate) fn each_meta(attrs: &[Attribute], errors: &mut Errors, mut each: impl FnMut(&ParseNestedMeta<'_>) -> syn::Result<()>) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("toolseal")) {
        if let Err(e) = attr.parse_nested_meta(|meta| each(&meta)) {
            errors.push(e);
        }
    }
}

fn unknown(meta: &ParseNestedMeta<'_>, on: &str, keys: &str) -> syn::Error {
    meta.error(format!("unknown `#[toolseal]` argument on {on}; expected {keys}"))
}

fn description(meta: &ParseNestedMeta<'_>, into: &mut Description) -> syn::Result<bool> {
    if meta.path.is_ident("description") {
        *into = Description::Given(meta.value()?.parse()?);
    } else if meta.path.is_ident("undescribed") {
        *into = Description::None;
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// Parses the type's `#[toolseal(..)]`.
pub(crate) fn container(attrs: &[Attribute], errors: &mut Errors) -> Container {
    let mut c = Container::default();
    each_meta(attrs, errors, |meta| {
        record(&mut c.keys, meta);
        if meta.path.is_ident("crate") {
            c.krate = Some(meta.value()?.parse::<LitStr>()?.parse()?);
        } else if meta.path.is_ident("min_properties") {
            c.min_properties = Some(meta.value()?.parse::<syn::LitInt>()?.base10_parse()?);
        } else if meta.path.is_ident("max_properties") {
            c.max_properties = Some(meta.value()?.parse::<syn::LitInt>()?.base10_parse()?);
        } else if meta.path.is_ident("const") {
            c.is_const = true;
        } else if meta.path.is_ident("tuple") {
            c.tuple = true;
        } else if meta.path.is_ident("values") {
            let list: syn::ExprArray = meta.value()?.parse()?;
            let mut texts = Vec::new();
            for e in &list.elems {
                match e {
                    Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) if toolseal_runtime::json::Json::parse(s.value().as_bytes()).is_ok() => texts.push(s.clone()),
                    _ => return Err(syn::Error::new(e.span(), "each of `values` is a JSON text in a string (`\"1\"`, `\"\\\"a\\\"\"`, `\"null\"`)")),
                }
            }
            c.value_table = Some(ValueTable::Values(texts));
        } else if meta.path.is_ident("never") {
            c.value_table = Some(ValueTable::Never);
        } else if meta.path.is_ident("quarantined") {
            let problem = meta.value()?.parse()?;
            let tool = match c.value_table.take() {
                Some(ValueTable::Quarantined { tool, .. }) => tool,
                _ => None,
            };
            c.value_table = Some(ValueTable::Quarantined { problem, tool });
        } else if meta.path.is_ident("tool") {
            let name: LitStr = meta.value()?.parse()?;
            match &mut c.value_table {
                Some(ValueTable::Quarantined { tool, .. }) => *tool = Some(name),
                _ => return Err(meta.error("`tool` follows `quarantined = \"…\"`")),
            }
        } else if meta.path.is_ident("spec") {
            c.value_table = Some(ValueTable::Spec { spec: meta.value()?.parse()?, pointer: None, schema: None });
        } else if meta.path.is_ident("pointer") || meta.path.is_ident("schema") {
            let is_pointer = meta.path.is_ident("pointer");
            let text: LitStr = meta.value()?.parse()?;
            match &mut c.value_table {
                Some(ValueTable::Spec { pointer, schema, .. }) => *(if is_pointer { pointer } else { schema }) = Some(text),
                _ => return Err(meta.error("`pointer` and `schema` follow `spec = STATIC`")),
            }
        } else if meta.path.is_ident("one_of") {
            c.one_of = true;
        } else if meta.path.is_ident("expected") {
            c.expected = Some(meta.value()?.parse()?);
        } else if !description(meta, &mut c.description)? && !c.rule.parse(meta)? {
            return Err(unknown(
                meta,
                "a type",
                "`crate`, `description`, `undescribed`, `min_properties`, `max_properties`, `const`, `one_of`, `expected`, `tuple`, `values`, `never`, `quarantined`, `spec` or a constraint",
            ));
        }
        Ok(())
    });
    c
}

/// Parses a field's `#[toolseal(..)]`.
pub(crate) fn field(attrs: &[Attribute], errors: &mut Errors) -> Field {
    let mut f = Field::default();
    each_meta(attrs, errors, |meta| {
        record(&mut f.keys, meta);
        if meta.path.is_ident("rename") {
            f.rename = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("default") {
            f.default = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("required") {
            f.required = true;
        } else if meta.path.is_ident("rest") {
            f.rest = true;
        } else if meta.path.is_ident("flatten") {
            f.flatten = true;
        } else if meta.path.is_ident("require") {
            f.require.push(meta.value()?.parse()?);
        } else if meta.path.is_ident("any") {
            f.any = true;
        } else if !description(meta, &mut f.description)? && !f.rule.parse(meta)? {
            return Err(unknown(meta, "a field", "`rename`, `default`, `required`, `rest`, `flatten`, `require`, `any`, `description`, `undescribed` or a constraint"));
        }
        Ok(())
    });
    f
}

/// Parses a variant's `#[toolseal(..)]`.
pub(crate) fn variant(attrs: &[Attribute], errors: &mut Errors) -> Variant {
    let mut v = Variant::default();
    each_meta(attrs, errors, |meta| {
        if meta.path.is_ident("rename") {
            v.rename = Some(meta.value()?.parse()?);
            Ok(())
        } else {
            Err(unknown(meta, "a variant", "`rename`"))
        }
    });
    v
}
