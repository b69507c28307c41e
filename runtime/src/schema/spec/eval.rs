//! Evaluation: a value against a compiled node, draft 2020-12 semantics,
//! every failure a classified [`Rejection`] (keys the schema does not allow and
//! missing keys are H2, everything else H3).

use std::borrow::Cow;
use std::sync::Arc;

use super::{Rules, SpecDoc, SpecNode, TYPES};
use crate::check::{self, Cx};
use crate::json::{Json, JsonKind};
use crate::path::Path;
use crate::rejection::{Class, Keyword, Names, Rejection};

/// How deep evaluation may nest (in-place applicators and references included)
/// before a schema is taken to loop without consuming the value.
const MAX_DEPTH: u32 = 384;

const NUMBER_BITS: u8 = 16 | 64;
const STRING_BIT: u8 = 32;

/// What a successful evaluation covered: the members and elements that
/// `unevaluatedProperties` / `unevaluatedItems` no longer apply to.
struct Evaluated {
    keys: Vec<bool>,
    items: Vec<bool>,
}

impl Evaluated {
    /// Nothing evaluated yet; nothing tracked where no `unevaluated*` keyword could read it.
    fn for_value(v: &Json<'_>, track: bool) -> Evaluated {
        match v {
            _ if !track => Evaluated { keys: Vec::new(), items: Vec::new() },
            Json::Object(m) => Evaluated { keys: vec![false; m.len()], items: Vec::new() },
            Json::Array(a) => Evaluated { keys: Vec::new(), items: vec![false; a.len()] },
            _ => Evaluated { keys: Vec::new(), items: Vec::new() },
        }
    }

    fn mark_key(&mut self, i: usize) {
        if let Some(k) = self.keys.get_mut(i) {
            *k = true;
        }
    }

    fn mark_item(&mut self, i: usize) {
        if let Some(k) = self.items.get_mut(i) {
            *k = true;
        }
    }

    fn absorb(&mut self, other: Evaluated) {
        for (a, b) in self.keys.iter_mut().zip(other.keys) {
            *a |= b;
        }
        for (a, b) in self.items.iter_mut().zip(other.items) {
            *a |= b;
        }
    }
}

/// The dynamic scope: the schema resources evaluation passed through, innermost first.
struct Scope<'a> {
    parent: Option<&'a Scope<'a>>,
    resource: &'a str,
}

/// One evaluation's state besides the value: mode, coercions and depth.
struct Run<'c> {
    cx: &'c mut Cx,
    depth: u32,
}

/// The rejection to report among several: the first H2 (a key problem is a
/// signature error wherever it sits), else the first.
fn pick(mut errors: Vec<Rejection>) -> Option<Rejection> {
    let i = errors.iter().position(|e| e.class() == Class::H2).unwrap_or(0);
    (!errors.is_empty()).then(|| errors.swap_remove(i))
}

fn type_names(bits: u8) -> String {
    let names: Vec<&str> = TYPES.iter().filter(|(_, b)| bits & b != 0).map(|(n, _)| *n).collect();
    names.join(" or ")
}

fn has_type(bits: u8, v: &Json<'_>) -> bool {
    let want = |name: &str| TYPES.iter().any(|(n, b)| *n == name && bits & b != 0);
    match v {
        Json::Null => want("null"),
        Json::Bool(_) => want("boolean"),
        Json::Number(n) => want("number") || (want("integer") && n.is_integer()),
        Json::String(_) => want("string"),
        Json::Array(_) => want("array"),
        Json::Object(_) => want("object"),
    }
}

impl SpecDoc {
    /// Validates `v`, found at `at`, against node `node` (a whole value position):
    /// duplicate keys anywhere inside are H2, then the schema's keywords.
    pub fn validate_at(&self, node: usize, v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<(), Rejection> {
        check::no_duplicates_deep(v, at)?;
        let mut errors = Vec::new();
        self.eval(node, v, at, None, &mut Run { cx, depth: 0 }, &mut errors);
        match pick(errors) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Whether `v` is valid for node `node` (strict mode).
    pub fn is_valid(&self, node: usize, v: &Json<'_>) -> bool {
        self.validate_at(node, v, &Path::root(), &mut Cx::strict()).is_ok()
    }

    /// `$dynamicRef`: the outermost resource in the dynamic scope with a `$dynamicAnchor` of this name.
    fn dynamic_target(&self, scope: Option<&Scope<'_>>, name: &str) -> Option<usize> {
        let mut chain = Vec::new();
        let mut at = scope;
        while let Some(s) = at {
            chain.push(s.resource);
            at = s.parent;
        }
        chain.iter().rev().find_map(|uri| self.dynamic.get(&format!("{uri}#{name}")).copied())
    }

    /// Evaluates `v` against `id` in place: failures go to `errors`; returns what it evaluated.
    fn trial(&self, id: usize, v: &Json<'_>, at: &Path<'_>, scope: Option<&Scope<'_>>, run: &mut Run<'_>) -> (Evaluated, Vec<Rejection>, Cx) {
        let mut errors = Vec::new();
        let mut cx = run.cx.child();
        let ev = self.eval(id, v, at, scope, &mut Run { cx: &mut cx, depth: run.depth }, &mut errors);
        (ev, errors, cx)
    }

    fn eval(&self, id: usize, v: &Json<'_>, at: &Path<'_>, scope: Option<&Scope<'_>>, run: &mut Run<'_>, errors: &mut Vec<Rejection>) -> Evaluated {
        let r = match &self.nodes[id] {
            SpecNode::Bool(true) => return Evaluated::for_value(v, self.annotations),
            SpecNode::Bool(false) => {
                errors.push(Rejection::violation(at, Keyword::False, "no value (the schema here is `false`)", v.kind()));
                return Evaluated::for_value(v, self.annotations);
            }
            SpecNode::Rules(r) => r,
        };
        if run.depth >= MAX_DEPTH {
            errors.push(Rejection::violation(at, Keyword::Ref, format!("a value the schema at `#{}` can decide (its references loop without consuming the value)", r.pointer), v.kind()));
            return Evaluated::for_value(v, self.annotations);
        }
        run.depth += 1;
        // Entering another resource (at its root or through a reference into it) extends the dynamic scope.
        let entered;
        let scope = match scope {
            Some(s) if *s.resource == *r.resource => scope,
            _ => {
                entered = Scope { parent: scope, resource: &r.resource };
                Some(&entered)
            }
        };
        let ev = self.rules(r, v, at, scope, run, errors);
        run.depth -= 1;
        ev
    }

    fn rules(&self, r: &Rules, v: &Json<'_>, at: &Path<'_>, scope: Option<&Scope<'_>>, run: &mut Run<'_>, errors: &mut Vec<Rejection>) -> Evaluated {
        let mut ev = Evaluated::for_value(v, self.annotations);
        if let Some(target) = r.reference {
            let e = self.eval(target, v, at, scope, run, errors);
            ev.absorb(e);
            if r.ref_only {
                return ev;
            }
        }
        if let Some((target, name)) = &r.dynamic_ref {
            let target = name.as_deref().and_then(|n| self.dynamic_target(scope, n)).unwrap_or(*target);
            let e = self.eval(target, v, at, scope, run, errors);
            ev.absorb(e);
        }
        // A number given as a string: counted apart in strict mode, read in lenient mode.
        let coerced;
        let v = match (r.types, v) {
            (Some(bits), Json::String(s)) if bits & NUMBER_BITS != 0 && bits & STRING_BIT == 0 && check::numeric_string(s).is_some() => {
                let noun = if bits & 16 != 0 { "number" } else { "integer" };
                match check::number(v, at, run.cx, noun) {
                    Ok(n) => {
                        coerced = Json::Number(n);
                        &coerced
                    }
                    Err(e) => {
                        errors.push(e);
                        return ev;
                    }
                }
            }
            _ => v,
        };
        if let Some(bits) = r.types
            && !has_type(bits, v)
        {
            errors.push(Rejection::violation(at, Keyword::Type, type_names(bits), v.kind()));
            return ev;
        }
        if let Some(values) = &r.enumeration
            && let Err(e) = check::one_of_values(v, at, values, || Cow::Owned(values_expected(values)))
        {
            errors.push(e);
        }
        if let Some(c) = &r.constant
            && c != v
        {
            errors.push(Rejection::violation(at, Keyword::Const, format!("exactly {}", shown(c)), v.kind()));
        }
        match v {
            Json::Number(n) => {
                let result = match n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from)) {
                    Some(i) => check::bounded_int(i, at, &r.bounds, "number"),
                    None => check::bounded(n.as_f64(), at, &r.bounds, "number"),
                };
                errors.extend(result.err());
            }
            Json::String(s) => {
                errors.extend(check::length(s, at, r.min_length, r.max_length).err());
                if let Some(p) = &r.pattern {
                    errors.extend(check::pattern(s, at, &p.regex, &p.source).err());
                }
                if let Some(f) = r.format {
                    errors.extend(check::format(s, at, f).err());
                }
            }
            Json::Array(a) => self.array(r, a, at, scope, run, errors, &mut ev),
            Json::Object(m) => self.object(r, v, m, at, scope, run, errors, &mut ev),
            Json::Null | Json::Bool(_) => {}
        }
        for &s in &r.all_of {
            let e = self.eval(s, v, at, scope, run, errors);
            ev.absorb(e);
        }
        if !r.any_of.is_empty() {
            let mut failures = Vec::new();
            let mut matched = false;
            for &s in &r.any_of {
                let (e, errs, cx) = self.trial(s, v, at, scope, run);
                if errs.is_empty() {
                    if !matched {
                        run.cx.absorb(cx);
                    }
                    matched = true;
                    ev.absorb(e);
                } else {
                    failures.extend(pick(errs));
                }
            }
            if !matched {
                errors.push(check::union_error(at, v, Keyword::AnyOf, Cow::Borrowed("a value matching at least one `anyOf` option"), failures));
            }
        }
        if !r.one_of.is_empty() {
            let mut failures = Vec::new();
            let mut matches = 0;
            for &s in &r.one_of {
                let (e, errs, cx) = self.trial(s, v, at, scope, run);
                if errs.is_empty() {
                    matches += 1;
                    if matches == 1 {
                        run.cx.absorb(cx);
                        ev.absorb(e);
                    }
                } else {
                    failures.extend(pick(errs));
                }
            }
            match matches {
                0 => errors.push(check::union_error(at, v, Keyword::OneOf, Cow::Borrowed("a value matching exactly one `oneOf` option"), failures)),
                1 => {}
                _ => errors.push(check::one_of_ambiguous(at, v, Cow::Borrowed("a value matching exactly one `oneOf` option, not several"))),
            }
        }
        if let Some(s) = r.not {
            let (_, errs, _) = self.trial(s, v, at, scope, run);
            if errs.is_empty() {
                errors.push(Rejection::violation(at, Keyword::Not, format!("a value the schema at `#{}/not` rejects", r.pointer), v.kind()));
            }
        }
        if let Some((condition, then, otherwise)) = r.condition {
            let (e, errs, cx) = self.trial(condition, v, at, scope, run);
            let branch = if errs.is_empty() {
                run.cx.absorb(cx);
                ev.absorb(e);
                then
            } else {
                otherwise
            };
            if let Some(b) = branch {
                let e = self.eval(b, v, at, scope, run, errors);
                ev.absorb(e);
            }
        }
        self.unevaluated(r, v, at, scope, run, errors, &mut ev);
        ev
    }

    #[allow(clippy::too_many_arguments)]
    fn array(&self, r: &Rules, a: &[Json<'_>], at: &Path<'_>, scope: Option<&Scope<'_>>, run: &mut Run<'_>, errors: &mut Vec<Rejection>, ev: &mut Evaluated) {
        errors.extend(check::items(a, at, r.min_items, r.max_items, r.unique_items).err());
        for (i, item) in a.iter().enumerate() {
            let node = match r.prefix_items.get(i) {
                Some(&p) => p,
                None => match r.items {
                    Some(s) => s,
                    None => continue,
                },
            };
            self.eval(node, item, &at.index(i), scope, run, errors);
            ev.mark_item(i);
        }
        if let Some(c) = r.contains {
            let mut found = 0u64;
            for (i, item) in a.iter().enumerate() {
                let (_, errs, cx) = self.trial(c, item, &at.index(i), scope, run);
                if errs.is_empty() {
                    run.cx.absorb(cx);
                    found += 1;
                    ev.mark_item(i);
                }
            }
            let min = r.min_contains.unwrap_or(1);
            if found < min {
                let keyword = if r.min_contains.is_some() { Keyword::MinContains } else { Keyword::Contains };
                errors.push(Rejection::violation(at, keyword, format!("at least {min} items matching `#{}/contains`", r.pointer), JsonKind::Array));
            }
            if let Some(max) = r.max_contains.filter(|m| found > *m) {
                errors.push(Rejection::violation(at, Keyword::MaxContains, format!("at most {max} items matching `#{}/contains`", r.pointer), JsonKind::Array));
            }
        }
    }

    fn declared(r: &Rules) -> Names {
        let names: Arc<[Box<str>]> = r.properties.iter().map(|(k, _)| k.clone().into_boxed_str()).collect();
        Names::Shared(names)
    }

    fn is_false(&self, id: usize) -> bool {
        matches!(self.nodes[id], SpecNode::Bool(false))
    }

    #[allow(clippy::too_many_arguments)]
    fn object(&self, r: &Rules, v: &Json<'_>, m: &[(Cow<'_, str>, Json<'_>)], at: &Path<'_>, scope: Option<&Scope<'_>>, run: &mut Run<'_>, errors: &mut Vec<Rejection>, ev: &mut Evaluated) {
        let present = |name: &str| m.iter().any(|(k, _)| k == name);
        for name in &r.required {
            if !present(name) {
                errors.push(Rejection::missing_key(at, name.clone(), Self::declared(r)));
            }
        }
        for (key, needs) in &r.dependent_required {
            if present(key) {
                for n in needs.iter().filter(|n| !present(n)) {
                    errors.push(Rejection::missing_key(at, n.clone(), Self::declared(r)));
                }
            }
        }
        if let Some(names) = r.property_names {
            for (k, _) in m {
                let (_, errs, _) = self.trial(names, &Json::String(Cow::Borrowed(k)), at, scope, run);
                if !errs.is_empty() {
                    errors.push(Rejection::undeclared_key(at, k, Self::declared(r)));
                }
            }
        }
        errors.extend(check::property_count(m.len(), at, r.min_properties, r.max_properties).err());
        for (i, (k, x)) in m.iter().enumerate() {
            let here = at.key(k);
            let mut matched = false;
            if let Some((_, p)) = r.properties.iter().find(|(name, _)| name == k) {
                self.eval(*p, x, &here, scope, run, errors);
                matched = true;
            }
            for (pattern, p) in &r.pattern_properties {
                if pattern.regex.is_match(k) {
                    self.eval(*p, x, &here, scope, run, errors);
                    matched = true;
                }
            }
            if !matched {
                match r.additional_properties {
                    Some(p) if self.is_false(p) => errors.push(Rejection::undeclared_key(at, k, Self::declared(r))),
                    Some(p) => {
                        self.eval(p, x, &here, scope, run, errors);
                    }
                    None => continue,
                }
            }
            ev.mark_key(i);
        }
        for (key, s) in &r.dependent_schemas {
            if present(key) {
                let e = self.eval(*s, v, at, scope, run, errors);
                ev.absorb(e);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn unevaluated(&self, r: &Rules, v: &Json<'_>, at: &Path<'_>, scope: Option<&Scope<'_>>, run: &mut Run<'_>, errors: &mut Vec<Rejection>, ev: &mut Evaluated) {
        match v {
            Json::Array(a) => {
                if let Some(s) = r.unevaluated_items {
                    for (i, item) in a.iter().enumerate().filter(|(i, _)| !ev.items[*i]) {
                        if self.is_false(s) {
                            errors.push(Rejection::violation(&at.index(i), Keyword::UnevaluatedItems, "no item here (`unevaluatedItems: false`)", item.kind()));
                        } else {
                            self.eval(s, item, &at.index(i), scope, run, errors);
                        }
                    }
                    ev.items.iter_mut().for_each(|x| *x = true);
                }
            }
            Json::Object(m) => {
                if let Some(s) = r.unevaluated_properties {
                    for (i, (k, x)) in m.iter().enumerate() {
                        if ev.keys[i] {
                            continue;
                        }
                        if self.is_false(s) {
                            errors.push(Rejection::undeclared_key(at, k, Self::declared(r)));
                        } else {
                            self.eval(s, x, &at.key(k), scope, run, errors);
                        }
                    }
                    ev.keys.iter_mut().for_each(|x| *x = true);
                }
            }
            _ => {}
        }
    }
}

/// A value as a person reads it in a message, cut short.
fn shown(v: &Json<'_>) -> String {
    let text = v.to_json_string();
    match text.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

fn values_expected(values: &[Json<'_>]) -> String {
    let listed: Vec<String> = values.iter().take(8).map(shown).collect();
    let more = if values.len() > 8 { ", …" } else { "" };
    format!("one of {}{more}", listed.join(", "))
}
