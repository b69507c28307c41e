//! Probe calls for a tool, built from its compiled schema: honest calls that
//! must be accepted, and H1/H2/H3 mutations whose class and pointer are known
//! by construction. Tests, the benchmark harness and users checking a registry
//! share them.

use std::borrow::Cow;

use crate::check::{Cx, Format};
use crate::json::{Json, JsonKind, Number};
use crate::path::Path;
use crate::rejection::Class;
use crate::schema::{Additional, IntRepr, Items, Node, ObjectRule, Schema, SchemaDoc, UnionMode};
use crate::validate::validate_at;

/// What resolving a probe must give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// The call is valid.
    Accept,
    /// The call is rejected with this class at this pointer.
    Reject {
        /// The class.
        class: Class,
        /// The JSON pointer into the call object.
        pointer: String,
        /// Whether it is a number given as a string (counted apart).
        numeric_string: bool,
    },
}

/// One probe call.
#[derive(Debug, Clone)]
pub struct Probe {
    /// What the probe does (`honest`, `H2 undeclared /arguments/override`, ...).
    pub label: String,
    /// The call object as JSON text.
    pub call: String,
    /// The expected outcome.
    pub expect: Expect,
}

type Value = Json<'static>;

fn s(text: &str) -> Value {
    Json::String(Cow::Owned(text.to_owned()))
}

fn int(i: i64) -> Value {
    Json::Number(if i >= 0 { Number::PosInt(i as u64) } else { Number::NegInt(i) })
}

fn num(x: f64) -> Value {
    Json::Number(Number::Float(x))
}

fn call_text(name: &str, args: &Value) -> String {
    Json::Object(vec![("name".into(), s(name)), ("arguments".into(), args.clone())]).to_json_string()
}

/// Every probe for `tool` of a registry whose tool names are `registry`.
pub fn probes(registry: &[&str], tool: &str, doc: &SchemaDoc) -> Vec<Probe> {
    let mut out = Vec::new();
    let probe = Gen { doc };
    let (Some(minimal), Some(full)) = (probe.honest(&doc.root, 0, false), probe.honest(&doc.root, 0, true)) else {
        return out;
    };
    out.push(Probe { label: "honest (required keys)".into(), call: call_text(tool, &minimal), expect: Expect::Accept });
    out.push(Probe { label: "honest (all keys)".into(), call: call_text(tool, &full), expect: Expect::Accept });
    for (label, name) in h1_names(tool) {
        if !registry.contains(&name.as_str()) {
            out.push(Probe { label: format!("H1 {label}"), call: call_text(&name, &full), expect: reject(Class::H1, "/name") });
        }
    }
    probe.mutations(&doc.root, &full, "/arguments", 0, &mut |label, pointer, class, numeric, args| {
        out.push(Probe { label: format!("{class} {label} {pointer}"), call: call_text(tool, &args), expect: Expect::Reject { class, pointer: pointer.to_owned(), numeric_string: numeric } });
    });
    out
}

fn reject(class: Class, pointer: &str) -> Expect {
    Expect::Reject { class, pointer: pointer.to_owned(), numeric_string: false }
}

/// Names a model might emit instead of `tool`.
fn h1_names(tool: &str) -> Vec<(&'static str, String)> {
    let mut out = vec![("invented name", "wipe_disk".to_owned()), ("other case", tool.to_uppercase()), ("trailing space", format!("{tool} "))];
    let homoglyphs = [('a', 'а'), ('e', 'е'), ('o', 'о'), ('c', 'с'), ('p', 'р'), ('i', 'і')];
    if let Some((from, to)) = homoglyphs.iter().find(|(from, _)| tool.contains(*from)) {
        out.push(("homoglyph", tool.replacen(*from, &to.to_string(), 1)));
    } else {
        out.push(("zero-width space", format!("{tool}\u{200b}")));
    }
    out.retain(|(_, n)| n != tool);
    out
}

struct Gen<'d> {
    doc: &'d SchemaDoc,
}

impl Gen<'_> {
    /// A valid value for `schema`, with all optional properties when `full`.
    fn honest(&self, schema: &Schema, depth: usize, full: bool) -> Option<Value> {
        if depth > 6 {
            return None;
        }
        match &self.doc.resolve(schema).node {
            Node::Any => Some(s("any")),
            // No generator for the specification's keywords: such tools get no honest probe.
            Node::Never | Node::Spec(_) | Node::IfType(_) => None,
            Node::Null => Some(Json::Null),
            Node::Boolean => Some(Json::Bool(true)),
            Node::Integer { bounds, repr } => {
                let lo = bounds.minimum.map(f64::ceil).or(bounds.exclusive_minimum.map(|m| m.floor() + 1.0)).unwrap_or(if *repr == IntRepr::U64 { 0.0 } else { 1.0 });
                let hi = bounds.maximum.map(f64::floor).or(bounds.exclusive_maximum.map(|m| m.ceil() - 1.0)).unwrap_or(lo + 1000.0);
                let step = bounds.multiple_of.filter(|m| m.fract() == 0.0).unwrap_or(1.0);
                let start = (lo / step).ceil() * step;
                (start <= hi).then(|| int(start as i64))
            }
            Node::Number(bounds) => {
                let lo = bounds.minimum.or(bounds.exclusive_minimum).unwrap_or(0.0);
                let hi = bounds.maximum.or(bounds.exclusive_maximum).unwrap_or(lo + 100.0);
                let mut x = if let Some(m) = bounds.multiple_of { ((lo / m).floor() + 1.0) * m } else { lo + (hi - lo) / 2.0 };
                if bounds.minimum == Some(lo) && bounds.multiple_of.is_none() && hi == lo {
                    x = lo;
                }
                (x >= lo && x <= hi).then(|| num(x))
            }
            Node::String(rule) => {
                let min = rule.min_length.unwrap_or(0) as usize;
                let max = rule.max_length.map_or(usize::MAX, |m| m as usize);
                let mut candidates: Vec<String> = Vec::new();
                if let Some(f) = rule.format {
                    candidates.push(format_example(f).to_owned());
                }
                for p in &rule.patterns {
                    candidates.extend(pattern_example(&p.source));
                }
                candidates.extend(["sample".to_owned(), "a".repeat(min.max(1)), "x".to_owned()]);
                candidates
                    .into_iter()
                    .find(|c| {
                        let n = c.chars().count();
                        n >= min && n <= max && rule.patterns.iter().all(|p| p.regex.is_match(c)) && rule.format.is_none_or(|f| f.matches(c))
                    })
                    .map(|c| s(&c))
            }
            Node::Array(a) => {
                let mut items = Vec::new();
                for p in &a.prefix {
                    items.push(self.honest(p, depth + 1, full)?);
                }
                let want = a.min_items.unwrap_or(0).max(if full { items.len() as u64 + 1 } else { 0 }) as usize;
                let want = want.min(a.max_items.map_or(usize::MAX, |m| m as usize));
                while items.len() < want {
                    let item = match &a.items {
                        Items::Schema(i) => self.honest(i, depth + 1, full)?,
                        Items::Any => int(items.len() as i64),
                        Items::None => break,
                    };
                    if a.unique && items.contains(&item) {
                        let distinct = self.distinct_variant(&a.items, &items, depth)?;
                        items.push(distinct);
                    } else {
                        items.push(item);
                    }
                }
                Some(Json::Array(items))
            }
            Node::Object(o) => self.honest_object(o, depth, full),
            Node::Enum(values) => values.first().cloned(),
            Node::Const(v) => Some(v.clone()),
            Node::Nullable(inner) => self.honest(inner, depth + 1, full).or(Some(Json::Null)),
            // Under `oneOf` a value must match exactly one option: keep the first candidate that does.
            Node::Union { mode: UnionMode::OneOf, options } => {
                options.iter().filter_map(|o| self.honest(o, depth + 1, full)).find(|v| options.iter().filter(|o| validate_at(self.doc, o, v, &Path::root(), &mut Cx::strict()).is_ok()).count() == 1)
            }
            Node::Union { options, .. } => options.iter().find_map(|o| self.honest(o, depth + 1, full)),
            Node::Ref(_) => None,
        }
    }

    fn distinct_variant(&self, items: &Items, taken: &[Value], depth: usize) -> Option<Value> {
        let Items::Schema(schema) = items else { return Some(int(taken.len() as i64)) };
        match &self.doc.resolve(schema).node {
            Node::Enum(values) => values.iter().find(|v| !taken.contains(v)).cloned(),
            Node::String(rule) if rule.patterns.is_empty() && rule.format.is_none() => {
                let v = s(&format!("{}{}", "v".repeat(rule.min_length.unwrap_or(1).max(1) as usize), taken.len()));
                Some(v)
            }
            Node::Integer { .. } | Node::Number(_) => {
                let base = self.honest(schema, depth + 1, false)?;
                let next = match base {
                    Json::Number(n) => n.as_f64() + taken.len() as f64,
                    _ => return None,
                };
                Some(if next.fract() == 0.0 { int(next as i64) } else { num(next) })
            }
            _ => None,
        }
    }

    fn honest_object(&self, o: &ObjectRule, depth: usize, full: bool) -> Option<Value> {
        let mut members: Vec<(Cow<'static, str>, Value)> = Vec::new();
        for p in &o.properties {
            if p.required || full {
                match self.honest(&p.schema, depth + 1, full) {
                    Some(v) => members.push((p.name.clone().into(), v)),
                    None if p.required => return None,
                    None => {}
                }
            }
        }
        for r in &o.required_extra {
            let v = match &o.additional {
                Additional::Schema(a) => self.honest(a, depth + 1, full)?,
                _ => s("extra"),
            };
            members.push((r.clone().into(), v));
        }
        if let Some(min) = o.min_properties {
            while (members.len() as u64) < min {
                let v = match &o.additional {
                    Additional::Schema(a) => self.honest(a, depth + 1, full)?,
                    Additional::Any => s("extra"),
                    Additional::Closed => return None,
                };
                members.push((format!("extra_{}", members.len()).into(), v));
            }
        }
        if o.max_properties.is_some_and(|m| members.len() as u64 > m) {
            return None;
        }
        Some(Json::Object(members))
    }

    /// Calls `emit` with each H2/H3 mutation of `value` (valid for `schema`, found at `pointer`).
    fn mutations(&self, schema: &Schema, value: &Value, pointer: &str, depth: usize, emit: &mut dyn FnMut(&str, &str, Class, bool, Value)) {
        let node = &self.doc.resolve(schema).node;
        let mut emit_here = |label: &str, class: Class, numeric: bool, v: Value| emit(label, pointer, class, numeric, v);
        for (label, bad, numeric) in self.bad_values(node, value) {
            emit_here(label, Class::H3, numeric, bad);
        }
        let (Node::Object(o), Json::Object(members)) = (node, value) else { return };
        if depth > 3 {
            return;
        }
        let with = |members: Vec<(Cow<'static, str>, Value)>| Json::Object(members);
        if matches!(o.additional, Additional::Closed) {
            let key = ["override", "force", "admin", "x"].into_iter().find(|k| o.properties.iter().all(|p| p.name != *k)).unwrap_or("zz_undeclared");
            let mut m = members.clone();
            m.push((key.into(), Json::Bool(true)));
            emit(&format!("undeclared key {key:?}"), &format!("{pointer}/{}", escape(key)), Class::H2, false, with(m));
        }
        for p in o.properties.iter().filter(|p| p.required) {
            let m: Vec<_> = members.iter().filter(|(k, _)| *k != p.name).cloned().collect();
            if o.min_properties.is_none_or(|min| m.len() as u64 >= min) {
                emit(&format!("missing {:?}", p.name), &format!("{pointer}/{}", escape(&p.name)), Class::H2, false, with(m));
            }
        }
        if let Some((k, v)) = members.first() {
            let mut m = members.clone();
            m.push((k.clone(), v.clone()));
            emit(&format!("duplicate {k:?}"), &format!("{pointer}/{}", escape(k)), Class::H2, false, with(m));
        }
        for (i, (k, v)) in members.iter().enumerate() {
            let Some(p) = o.properties.iter().find(|p| p.name == *k) else { continue };
            let here = format!("{pointer}/{}", escape(k));
            self.mutations(&p.schema, v, &here, depth + 1, &mut |label, at, class, numeric, bad| {
                let mut m = members.clone();
                m[i].1 = bad;
                emit(label, at, class, numeric, with(m));
            });
        }
    }

    /// H3 replacements for a valid `value` of `node`, each violating one keyword.
    fn bad_values(&self, node: &Node, value: &Value) -> Vec<(&'static str, Value, bool)> {
        let mut out = Vec::new();
        let accepted = self.kinds(node);
        if !accepted.is_empty() {
            let candidates = [s("text"), Json::Bool(true), int(7), num(0.5), Json::Array(Vec::new()), Json::Object(Vec::new()), Json::Null];
            let fits = |k: JsonKind| accepted.contains(&k) || (k == JsonKind::Integer && accepted.contains(&JsonKind::Number));
            if let Some(flip) = candidates.into_iter().find(|c| !fits(c.kind())) {
                out.push(("wrong type", flip, false));
            }
        }
        match node {
            Node::Integer { bounds, .. } | Node::Number(bounds) => {
                let is_int = matches!(node, Node::Integer { .. });
                let below = |x: f64| if is_int { int((x.ceil() - 1.0) as i64) } else { num(x - 0.5) };
                let above = |x: f64| if is_int { int((x.floor() + 1.0) as i64) } else { num(x + 0.5) };
                if let Some(m) = bounds.minimum {
                    out.push(("below minimum", below(m), false));
                }
                if let Some(m) = bounds.exclusive_minimum {
                    out.push(("at exclusiveMinimum", if is_int && m.fract() != 0.0 { below(m) } else { num_like(m, is_int) }, false));
                }
                if let Some(m) = bounds.maximum {
                    out.push(("above maximum", above(m), false));
                }
                if let Some(m) = bounds.exclusive_maximum {
                    out.push(("at exclusiveMaximum", if is_int && m.fract() != 0.0 { above(m) } else { num_like(m, is_int) }, false));
                }
                if let Json::Number(n) = value {
                    let text = if n.is_integer() { format!("{}", n.as_f64() as i64) } else { format!("{}", n.as_f64()) };
                    out.push(("numeric string", s(&text), true));
                }
            }
            Node::String(rule) => {
                if let Some(min) = rule.min_length.filter(|m| *m > 0) {
                    out.push(("too short", s(&"a".repeat(min as usize - 1)), false));
                }
                if let Some(max) = rule.max_length {
                    out.push(("too long", s(&"a".repeat(max as usize + 1)), false));
                }
                let min = rule.min_length.unwrap_or(0) as usize;
                let max = rule.max_length.map_or(usize::MAX, |m| m as usize);
                let fits = |c: &str| (min..=max).contains(&c.chars().count());
                if let Some(p) = rule.patterns.first() {
                    let bad = ["!", "~~~~~~", " ", "", "zzzz zzzz", "0"].iter().map(|b| b.repeat(if b.is_empty() { 1 } else { min.max(1) })).find(|c| fits(c) && !p.regex.is_match(c));
                    if let Some(bad) = bad {
                        out.push(("pattern violated", s(&bad), false));
                    }
                } else if let Some(f) = rule.format {
                    let bad = ["not a valid value", "x", "::::"].iter().find(|c| fits(c) && !f.matches(c));
                    if let Some(bad) = bad {
                        out.push(("format violated", s(bad), false));
                    }
                }
            }
            Node::Enum(values) if values.iter().all(|v| v.as_str().is_some()) => {
                out.push(("not in enum", s("__not_in_enum__"), false));
            }
            Node::Const(Json::String(_)) => out.push(("not the const", s("__not_the_const__"), false)),
            Node::Array(a) => {
                if let Json::Array(items) = value {
                    if let Some(min) = a.min_items.filter(|m| *m > 0) {
                        out.push(("too few items", Json::Array(items.iter().take(min as usize - 1).cloned().collect()), false));
                    }
                    if let (Some(max), Some(first)) = (a.max_items, items.first()) {
                        out.push(("too many items", Json::Array(std::iter::repeat_n(first.clone(), max as usize + 1).collect()), false));
                    }
                    if a.unique
                        && a.max_items.is_none_or(|m| m >= 2)
                        && let Some(first) = items.first()
                    {
                        let mut dup = vec![first.clone(), first.clone()];
                        dup.extend(items.iter().skip(1).cloned());
                        if a.max_items.is_none_or(|m| dup.len() as u64 <= m) {
                            out.push(("duplicate items", Json::Array(dup), false));
                        }
                    }
                }
            }
            _ => {}
        }
        out
    }

    /// The JSON kinds `node` can accept (empty: any kind).
    fn kinds(&self, node: &Node) -> Vec<JsonKind> {
        use JsonKind as K;
        match node {
            Node::Any | Node::Never | Node::Spec(_) | Node::IfType(_) => Vec::new(),
            Node::Null => vec![K::Null],
            Node::Boolean => vec![K::Boolean],
            Node::Integer { .. } => vec![K::Integer],
            Node::Number(_) => vec![K::Integer, K::Number],
            Node::String(_) => vec![K::String],
            Node::Array(_) => vec![K::Array],
            Node::Object(_) => vec![K::Object],
            Node::Enum(vs) => vs.iter().map(Json::kind).collect(),
            Node::Const(v) => vec![v.kind()],
            Node::Nullable(inner) => {
                let mut k = self.kinds(&self.doc.resolve(inner).node);
                if k.is_empty() {
                    return k;
                }
                k.push(K::Null);
                k
            }
            Node::Union { options, .. } => {
                let mut all = Vec::new();
                for o in options {
                    let k = self.kinds(&self.doc.resolve(o).node);
                    if k.is_empty() {
                        return k;
                    }
                    all.extend(k);
                }
                all
            }
            Node::Ref(i) => self.kinds(&self.doc.defs[*i].schema.node),
        }
    }
}

fn num_like(x: f64, is_int: bool) -> Value {
    if is_int || x.fract() == 0.0 { int(x as i64) } else { num(x) }
}

fn escape(token: &str) -> String {
    let mut out = String::new();
    crate::path::push_escaped(&mut out, token);
    out
}

/// A string in `format`.
fn format_example(f: Format) -> &'static str {
    match f {
        Format::DateTime => "2024-05-01T12:30:00Z",
        Format::Date => "2024-05-01",
        Format::Time => "12:30:00Z",
        Format::Email => "someone@example.com",
        Format::Uri => "https://example.com/a",
        Format::UriReference => "/a/b",
        Format::Uuid => "123e4567-e89b-12d3-a456-426614174000",
        Format::Ipv4 => "192.0.2.1",
        Format::Ipv6 => "2001:db8::1",
        Format::Hostname => "example.com",
    }
}

/// Strings built from a pattern's syntax tree (first branch, fewest repetitions, and one more).
fn pattern_example(source: &str) -> Vec<String> {
    use regex_syntax::hir::{Class as C, Hir, HirKind};
    fn walk(h: &Hir, extra: bool, out: &mut String) {
        match h.kind() {
            HirKind::Empty | HirKind::Look(_) => {}
            HirKind::Literal(l) => out.push_str(&String::from_utf8_lossy(&l.0)),
            HirKind::Class(C::Unicode(c)) => {
                if let Some(r) = c.ranges().iter().find(|r| r.start().is_ascii_alphanumeric() || r.end().is_ascii_alphanumeric()).or(c.ranges().first()) {
                    let pick = (r.start()..=r.end()).find(|ch| ch.is_ascii_alphanumeric()).unwrap_or(r.start());
                    out.push(pick);
                }
            }
            HirKind::Class(C::Bytes(c)) => {
                if let Some(r) = c.ranges().first() {
                    out.push(r.start() as char);
                }
            }
            HirKind::Repetition(r) => {
                let n = r.min.max(u32::from(extra)).min(r.max.unwrap_or(u32::MAX));
                for _ in 0..n {
                    walk(&r.sub, extra, out);
                }
            }
            HirKind::Capture(c) => walk(&c.sub, extra, out),
            HirKind::Concat(hs) => hs.iter().for_each(|h| walk(h, extra, out)),
            HirKind::Alternation(hs) => {
                if let Some(h) = hs.first() {
                    walk(h, extra, out);
                }
            }
        }
    }
    let Ok(hir) = regex_syntax::parse(&crate::pattern::translate(source)) else { return Vec::new() };
    [false, true]
        .iter()
        .map(|extra| {
            let mut out = String::new();
            walk(&hir, *extra, &mut out);
            out
        })
        .collect()
}
