//! Policy conditions compiled once, evaluated straight over a call's arguments.
//!
//! Cedar's evaluator rebuilds each policy's condition and the request's context
//! for every decision (about a microsecond per policy that applies). The gate's
//! policies are validated in strict mode against the deployment's schema, and
//! their scopes are decided when the gate is built, so only the `when`/`unless`
//! conditions are left to evaluate. They are compiled here from Cedar's own JSON
//! form of the policy (its EST) into a small tree, and evaluated over a context
//! that borrows the call's strings.
//!
//! The tree covers Cedar's core expressions: literals, variables, `!`, `-`, `&&`,
//! `||`, `if`, `==`, `!=`, `<`, `<=`, `>`, `>=`, `+`, `-`, `*`, `in`, `is`, `has`,
//! `.`, `like`, `contains`, `containsAll`, `containsAny`, `isEmpty`, sets and
//! records. What it does not cover — extension functions, tags, an attribute of an
//! entity other than a principal or a server — is [`Fallback`]: a policy that
//! uses it is never compiled, and an evaluation that meets an error (an overflow,
//! a missing attribute) gives the decision back to Cedar, so every answer this
//! module gives is the one Cedar gives (the differential test in
//! `policy/tests/conditions.rs` holds them to it).

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::shape::{Attribute, Shape};

/// Cedar decides instead: a policy this module does not compile, or an evaluation
/// that would be an error in Cedar.
#[derive(Debug)]
pub(crate) struct Fallback;

/// A Cedar value; strings are borrowed from the policy, the gate or the call.
#[derive(Debug, Clone)]
pub(crate) enum Val<'a> {
    Bool(bool),
    Long(i64),
    Str(Cow<'a, str>),
    Set(Vec<Val<'a>>),
    Record(Vec<(Cow<'a, str>, Val<'a>)>),
    Entity { kind: Cow<'a, str>, id: Cow<'a, str> },
}

impl PartialEq for Val<'_> {
    /// Cedar's `==`: sets and records by their contents, values of two types unequal.
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Val::Bool(a), Val::Bool(b)) => a == b,
            (Val::Long(a), Val::Long(b)) => a == b,
            (Val::Str(a), Val::Str(b)) => a == b,
            (Val::Set(a), Val::Set(b)) => a.iter().all(|x| b.contains(x)) && b.iter().all(|x| a.contains(x)),
            (Val::Record(a), Val::Record(b)) => a.len() == b.len() && a.iter().all(|(k, v)| b.iter().any(|(l, w)| k == l && v == w)),
            (Val::Entity { kind: a, id: x }, Val::Entity { kind: b, id: y }) => a == b && x == y,
            _ => false,
        }
    }
}

impl<'a> Val<'a> {
    fn record_get(&self, attr: &str) -> Option<&Val<'a>> {
        match self {
            Val::Record(fields) => fields.iter().find(|(k, _)| k == attr).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// One element of a `like` pattern, over the UTF-8 bytes of the text: a literal
/// character is its bytes. Matching bytes is matching characters — a character's
/// encoding starts with a byte no other position of an encoding has, so a literal
/// can only match at a character's start, and a wildcard spans whole characters.
#[derive(Debug)]
enum Pattern {
    Wildcard,
    Byte(u8),
}

/// Binary operators.
#[derive(Debug, Clone, Copy)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    In,
    Contains,
    ContainsAll,
    ContainsAny,
}

/// The four variables.
#[derive(Debug, Clone, Copy)]
enum Var {
    Principal,
    Action,
    Resource,
    Context,
}

/// A compiled expression.
#[derive(Debug)]
enum Expr {
    Literal(Val<'static>),
    Var(Var),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Binary(Op, Box<Expr>, Box<Expr>),
    Get(Box<Expr>, String),
    Has(Box<Expr>, Vec<String>),
    Like(Box<Expr>, Vec<Pattern>),
    Is(Box<Expr>, String, Option<Box<Expr>>),
    IsEmpty(Box<Expr>),
    Set(Vec<Expr>),
    Record(Vec<(String, Expr)>),
}

/// A policy's conditions: each `when` must hold and no `unless`.
#[derive(Debug)]
pub(crate) struct Conditions(Vec<(bool, Expr)>);

impl Conditions {
    /// The conditions of a policy from its EST (`Policy::to_json`).
    pub(crate) fn compile(est: &Value) -> Result<Conditions, Fallback> {
        let conditions = est.get("conditions").and_then(Value::as_array).ok_or(Fallback)?;
        conditions
            .iter()
            .map(|c| {
                let when = match c.get("kind").and_then(Value::as_str) {
                    Some("when") => true,
                    Some("unless") => false,
                    _ => return Err(Fallback),
                };
                Ok((when, expr(c.get("body").ok_or(Fallback)?)?))
            })
            .collect::<Result<_, _>>()
            .map(Conditions)
    }

    /// Whether the conditions hold in `env`.
    pub(crate) fn hold(&self, env: &Env<'_>) -> Result<bool, Fallback> {
        for (when, condition) in &self.0 {
            if boolean(&*eval(condition, env)?)? != *when {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// What a decision is evaluated in.
pub(crate) struct Env<'a> {
    pub(crate) principal: &'a str,
    pub(crate) action: &'a str,
    pub(crate) resource: &'a str,
    pub(crate) context: Val<'a>,
    /// The attributes of the principal and of the server (the two entities whose
    /// attributes a policy may read; any other is left to Cedar).
    pub(crate) principal_attributes: &'a Val<'static>,
    pub(crate) resource_attributes: &'a Val<'static>,
}

impl Env<'_> {
    fn entity_attributes(&self, kind: &str, id: &str) -> Option<&Val<'static>> {
        match kind {
            "User" if id == self.principal => Some(self.principal_attributes),
            "Server" if id == self.resource => Some(self.resource_attributes),
            _ => None,
        }
    }
}

/// The context `{input: …}` of a call's arguments typed by `attributes`, as the gate
/// builds Cedar's (keys without a type left out, `3.0` read as `3`); `None` where the
/// gate denies instead (a value beyond 64 bits or of another type).
pub(crate) fn context<'a>(attributes: &'a [Attribute], arguments: &'a Map<String, Value>) -> Option<Val<'a>> {
    Some(Val::Record(vec![(Cow::Borrowed("input"), record(attributes, arguments)?)]))
}

fn record<'a>(attributes: &'a [Attribute], members: &'a Map<String, Value>) -> Option<Val<'a>> {
    let mut fields = Vec::with_capacity(attributes.len());
    for attribute in attributes {
        let (Ok(shape), Some(member)) = (&attribute.shape, members.get(&attribute.name)) else { continue };
        fields.push((Cow::Borrowed(attribute.name.as_str()), typed(shape, member)?));
    }
    Some(Val::Record(fields))
}

fn typed<'a>(shape: &'a Shape, value: &'a Value) -> Option<Val<'a>> {
    Some(match (shape, value) {
        (Shape::String, Value::String(s)) => Val::Str(Cow::Borrowed(s)),
        (Shape::Bool, Value::Bool(b)) => Val::Bool(*b),
        (Shape::Long, Value::Number(n)) => Val::Long(crate::gate::long(n)?),
        (Shape::Set(item), Value::Array(items)) => Val::Set(items.iter().map(|v| typed(item, v)).collect::<Option<_>>()?),
        (Shape::Record(attributes), Value::Object(members)) => record(attributes, members)?,
        _ => return None,
    })
}

fn boolean(value: &Val<'_>) -> Result<bool, Fallback> {
    match value {
        Val::Bool(b) => Ok(*b),
        _ => Err(Fallback),
    }
}

fn long(value: &Val<'_>) -> Result<i64, Fallback> {
    match value {
        Val::Long(n) => Ok(*n),
        _ => Err(Fallback),
    }
}

fn set<'v, 'a>(value: &'v Val<'a>) -> Result<&'v [Val<'a>], Fallback> {
    match value {
        Val::Set(items) => Ok(items),
        _ => Err(Fallback),
    }
}

fn eval<'x>(expr: &'x Expr, env: &'x Env<'x>) -> Result<Cow<'x, Val<'x>>, Fallback> {
    Ok(match expr {
        Expr::Literal(value) => Cow::Borrowed(value),
        Expr::Var(var) => match var {
            Var::Principal => Cow::Owned(Val::Entity { kind: Cow::Borrowed("User"), id: Cow::Borrowed(env.principal) }),
            Var::Action => Cow::Owned(Val::Entity { kind: Cow::Borrowed("Action"), id: Cow::Borrowed(env.action) }),
            Var::Resource => Cow::Owned(Val::Entity { kind: Cow::Borrowed("Server"), id: Cow::Borrowed(env.resource) }),
            Var::Context => Cow::Borrowed(&env.context),
        },
        Expr::Not(e) => Cow::Owned(Val::Bool(!boolean(&*eval(e, env)?)?)),
        Expr::Neg(e) => Cow::Owned(Val::Long(long(&*eval(e, env)?)?.checked_neg().ok_or(Fallback)?)),
        Expr::And(a, b) => Cow::Owned(Val::Bool(boolean(&*eval(a, env)?)? && boolean(&*eval(b, env)?)?)),
        Expr::Or(a, b) => Cow::Owned(Val::Bool(boolean(&*eval(a, env)?)? || boolean(&*eval(b, env)?)?)),
        Expr::If(c, then, otherwise) => {
            if boolean(&*eval(c, env)?)? {
                eval(then, env)?
            } else {
                eval(otherwise, env)?
            }
        }
        Expr::Binary(op, a, b) => {
            let (a, b) = (eval(a, env)?, eval(b, env)?);
            Cow::Owned(binary(*op, &a, &b)?)
        }
        Expr::Get(e, attr) => {
            let value = eval(e, env)?;
            if let Val::Entity { kind, id } = &*value {
                return Ok(Cow::Borrowed(env.entity_attributes(kind, id).and_then(|a| a.record_get(attr)).ok_or(Fallback)?));
            }
            match value {
                Cow::Borrowed(value) => Cow::Borrowed(value.record_get(attr).ok_or(Fallback)?),
                Cow::Owned(value) => Cow::Owned(value.record_get(attr).ok_or(Fallback)?.clone()),
            }
        }
        Expr::Has(e, path) => {
            let value = eval(e, env)?;
            let mut at: &Val<'_> = &value;
            for (i, attr) in path.iter().enumerate() {
                let found = match at {
                    Val::Record(_) => at.record_get(attr),
                    Val::Entity { kind, id } => env.entity_attributes(kind, id).ok_or(Fallback)?.record_get(attr),
                    _ => return Err(Fallback),
                };
                match found {
                    Some(next) if i + 1 < path.len() => at = next,
                    found => return Ok(Cow::Owned(Val::Bool(found.is_some()))),
                }
            }
            return Err(Fallback);
        }
        Expr::Like(e, pattern) => match &*eval(e, env)? {
            Val::Str(s) => Cow::Owned(Val::Bool(like(s, pattern))),
            _ => return Err(Fallback),
        },
        Expr::Is(e, kind, within) => {
            let value = eval(e, env)?;
            let Val::Entity { kind: actual, .. } = &*value else { return Err(Fallback) };
            let is = actual == kind;
            match within {
                Some(within) if is => Cow::Owned(binary(Op::In, &value, &*eval(within, env)?)?),
                _ => Cow::Owned(Val::Bool(is)),
            }
        }
        Expr::IsEmpty(e) => Cow::Owned(Val::Bool(set(&*eval(e, env)?)?.is_empty())),
        Expr::Set(items) => Cow::Owned(Val::Set(items.iter().map(|e| eval(e, env).map(Cow::into_owned)).collect::<Result<_, _>>()?)),
        Expr::Record(fields) => Cow::Owned(Val::Record(fields.iter().map(|(k, e)| Ok((Cow::Borrowed(k.as_str()), eval(e, env)?.into_owned()))).collect::<Result<_, _>>()?)),
    })
}

fn binary(op: Op, a: &Val<'_>, b: &Val<'_>) -> Result<Val<'static>, Fallback> {
    let arithmetic = |f: fn(i64, i64) -> Option<i64>| Ok(Val::Long(f(long(a)?, long(b)?).ok_or(Fallback)?));
    let compare = |f: fn(&i64, &i64) -> bool| Ok(Val::Bool(f(&long(a)?, &long(b)?)));
    match op {
        Op::Eq => Ok(Val::Bool(a == b)),
        Op::Ne => Ok(Val::Bool(a != b)),
        Op::Lt => compare(i64::lt),
        Op::Le => compare(i64::le),
        Op::Gt => compare(i64::gt),
        Op::Ge => compare(i64::ge),
        Op::Add => arithmetic(i64::checked_add),
        Op::Sub => arithmetic(i64::checked_sub),
        Op::Mul => arithmetic(i64::checked_mul),
        // The deployment's entities have no parents: `in` is equality with the
        // entity or with one of the set's.
        Op::In => {
            let Val::Entity { .. } = a else { return Err(Fallback) };
            match b {
                Val::Entity { .. } => Ok(Val::Bool(a == b)),
                Val::Set(items) if items.iter().all(|i| matches!(i, Val::Entity { .. })) => Ok(Val::Bool(items.contains(a))),
                _ => Err(Fallback),
            }
        }
        Op::Contains => Ok(Val::Bool(set(a)?.contains(b))),
        Op::ContainsAll => {
            let (a, b) = (set(a)?, set(b)?);
            Ok(Val::Bool(b.iter().all(|x| a.contains(x))))
        }
        Op::ContainsAny => {
            let (a, b) = (set(a)?, set(b)?);
            Ok(Val::Bool(b.iter().any(|x| a.contains(x))))
        }
    }
}

/// Cedar's `like`: the whole string matches, `*` any run of characters.
fn like(text: &str, pattern: &[Pattern]) -> bool {
    let text = text.as_bytes();
    // Greedy with one backtrack point (the last wildcard): linear in practice.
    let (mut t, mut p) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(Pattern::Byte(c)) if *c == text[t] => {
                t += 1;
                p += 1;
            }
            Some(Pattern::Wildcard) => {
                star = Some((p, t));
                p += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|x| matches!(x, Pattern::Wildcard))
}

/// An expression from its EST form.
fn expr(est: &Value) -> Result<Expr, Fallback> {
    let Value::Object(node) = est else { return Err(Fallback) };
    let mut members = node.iter();
    let (Some((key, body)), None) = (members.next(), members.next()) else { return Err(Fallback) };
    let sub = |name: &str| body.get(name).ok_or(Fallback).and_then(expr).map(Box::new);
    let binary = |op: Op| Ok(Expr::Binary(op, sub("left")?, sub("right")?));
    match key.as_str() {
        "Value" => literal(body).map(Expr::Literal),
        "Var" => Ok(Expr::Var(match body.as_str() {
            Some("principal") => Var::Principal,
            Some("action") => Var::Action,
            Some("resource") => Var::Resource,
            Some("context") => Var::Context,
            _ => return Err(Fallback),
        })),
        "!" => Ok(Expr::Not(sub("arg")?)),
        "neg" => Ok(Expr::Neg(sub("arg")?)),
        "&&" => Ok(Expr::And(sub("left")?, sub("right")?)),
        "||" => Ok(Expr::Or(sub("left")?, sub("right")?)),
        "if-then-else" => Ok(Expr::If(sub("if")?, sub("then")?, sub("else")?)),
        "==" => binary(Op::Eq),
        "!=" => binary(Op::Ne),
        "<" => binary(Op::Lt),
        "<=" => binary(Op::Le),
        ">" => binary(Op::Gt),
        ">=" => binary(Op::Ge),
        "+" => binary(Op::Add),
        "-" => binary(Op::Sub),
        "*" => binary(Op::Mul),
        "in" => binary(Op::In),
        "contains" => binary(Op::Contains),
        "containsAll" => binary(Op::ContainsAll),
        "containsAny" => binary(Op::ContainsAny),
        "isEmpty" => Ok(Expr::IsEmpty(sub("arg")?)),
        "." => Ok(Expr::Get(sub("left")?, body.get("attr").and_then(Value::as_str).ok_or(Fallback)?.to_owned())),
        "has" => {
            let path = match body.get("attr") {
                Some(Value::String(attr)) => vec![attr.clone()],
                Some(Value::Array(path)) if !path.is_empty() => path.iter().map(|a| a.as_str().map(str::to_owned).ok_or(Fallback)).collect::<Result<_, _>>()?,
                _ => return Err(Fallback),
            };
            Ok(Expr::Has(sub("left")?, path))
        }
        "like" => {
            let pattern = body.get("pattern").and_then(Value::as_array).ok_or(Fallback)?;
            let mut out = Vec::with_capacity(pattern.len());
            for element in pattern {
                match element {
                    Value::String(w) if w == "Wildcard" => out.push(Pattern::Wildcard),
                    Value::Object(l) => match l.get("Literal").and_then(Value::as_str) {
                        Some(text) if l.len() == 1 => out.extend(text.bytes().map(Pattern::Byte)),
                        _ => return Err(Fallback),
                    },
                    _ => return Err(Fallback),
                }
            }
            Ok(Expr::Like(sub("left")?, out))
        }
        "is" => {
            let kind = body.get("entity_type").and_then(Value::as_str).ok_or(Fallback)?.to_owned();
            let within = match body.get("in") {
                Some(e) => Some(Box::new(expr(e)?)),
                None => None,
            };
            Ok(Expr::Is(sub("left")?, kind, within))
        }
        "Set" => body.as_array().ok_or(Fallback)?.iter().map(expr).collect::<Result<_, _>>().map(Expr::Set),
        "Record" => body.as_object().ok_or(Fallback)?.iter().map(|(k, e)| Ok((k.clone(), expr(e)?))).collect::<Result<_, _>>().map(Expr::Record),
        // Extension functions, tags, slots, unknowns: Cedar's.
        _ => Err(Fallback),
    }
}

/// A literal from its EST form.
fn literal(est: &Value) -> Result<Val<'static>, Fallback> {
    Ok(match est {
        Value::Bool(b) => Val::Bool(*b),
        Value::Number(n) => Val::Long(n.as_i64().ok_or(Fallback)?),
        Value::String(s) => Val::Str(Cow::Owned(s.clone())),
        Value::Array(items) => Val::Set(items.iter().map(literal).collect::<Result<_, _>>()?),
        Value::Object(o) => match o.get("__entity") {
            Some(uid) if o.len() == 1 => {
                let part = |name: &str| uid.get(name).and_then(Value::as_str).map(|s| Cow::Owned(s.to_owned())).ok_or(Fallback);
                Val::Entity { kind: part("type")?, id: part("id")? }
            }
            _ if o.contains_key("__extn") => return Err(Fallback),
            _ => Val::Record(o.iter().map(|(k, v)| Ok((Cow::Owned(k.clone()), literal(v)?))).collect::<Result<_, _>>()?),
        },
        Value::Null => return Err(Fallback),
    })
}
