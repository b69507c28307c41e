//! Constraint checks shared by generated code and the interpreter, so both
//! reject the same values with the same class, keyword, pointer and words.

use std::borrow::Cow;

use regex::Regex;

use crate::format;
use crate::json::{Json, JsonKind, Number};
use crate::path::Path;
use crate::rejection::{Keyword, Rejection};

/// Numeric keywords; `const`-constructible so generated code can keep them in statics.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct NumberBounds {
    /// `minimum`
    pub minimum: Option<f64>,
    /// `maximum`
    pub maximum: Option<f64>,
    /// `exclusiveMinimum`
    pub exclusive_minimum: Option<f64>,
    /// `exclusiveMaximum`
    pub exclusive_maximum: Option<f64>,
    /// `multipleOf`
    pub multiple_of: Option<f64>,
}

impl NumberBounds {
    /// Whether no keyword is set.
    pub fn is_empty(&self) -> bool {
        *self == NumberBounds::default()
    }
}

/// A `format` toolseal enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// RFC 3339 `date-time`.
    DateTime,
    /// RFC 3339 `full-date`.
    Date,
    /// RFC 3339 `full-time`.
    Time,
    /// An e-mail address (RFC 5321 mailbox, simplified: see the README).
    Email,
    /// An absolute URI (RFC 3986).
    Uri,
    /// A URI or relative reference (RFC 3986).
    UriReference,
    /// An RFC 4122 UUID in hyphenated form.
    Uuid,
    /// A dotted-quad IPv4 address.
    Ipv4,
    /// An IPv6 address.
    Ipv6,
    /// An RFC 1123 host name.
    Hostname,
}

impl Format {
    /// Every supported format, as JSON Schema spells it.
    pub const ALL: &'static [(&'static str, Format)] = &[
        ("date-time", Format::DateTime),
        ("date", Format::Date),
        ("time", Format::Time),
        ("email", Format::Email),
        ("uri", Format::Uri),
        ("uri-reference", Format::UriReference),
        ("uuid", Format::Uuid),
        ("ipv4", Format::Ipv4),
        ("ipv6", Format::Ipv6),
        ("hostname", Format::Hostname),
    ];

    /// The format named `name`, if toolseal enforces it.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }

    /// The format's JSON Schema name.
    pub fn name(self) -> &'static str {
        Format::ALL.iter().find(|(_, f)| *f == self).map_or("", |(n, _)| n)
    }

    /// Whether `s` is valid for this format.
    pub fn matches(self, s: &str) -> bool {
        match self {
            Format::DateTime => format::is_date_time(s),
            Format::Date => format::is_date(s),
            Format::Time => format::is_time(s),
            Format::Email => format::is_email(s),
            Format::Uri => format::is_uri(s),
            Format::UriReference => format::is_uri_reference(s),
            Format::Uuid => format::is_uuid(s),
            Format::Ipv4 => s.parse::<std::net::Ipv4Addr>().is_ok(),
            Format::Ipv6 => s.parse::<std::net::Ipv6Addr>().is_ok(),
            Format::Hostname => format::is_hostname(s),
        }
    }
}

/// A number that lenient mode read out of a string.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Coercion {
    /// Where the string was.
    pub pointer: String,
    /// The string as given.
    pub text: String,
}

/// Resolution context: strict or lenient, and the coercions lenient mode made.
#[derive(Debug, Default)]
pub struct Cx {
    lenient: bool,
    coercions: Vec<Coercion>,
}

impl Cx {
    /// Strict mode (the default): numbers given as strings are rejected.
    pub fn strict() -> Cx {
        Cx::default()
    }

    /// Lenient mode: numbers given as strings are coerced and recorded.
    pub fn lenient() -> Cx {
        Cx { lenient: true, coercions: Vec::new() }
    }

    /// Whether this context coerces numeric strings.
    pub fn is_lenient(&self) -> bool {
        self.lenient
    }

    /// The coercions made so far.
    pub fn into_coercions(self) -> Vec<Coercion> {
        self.coercions
    }

    /// A context for trying one option of a union: same mode, no coercions yet.
    pub fn child(&self) -> Cx {
        Cx { lenient: self.lenient, coercions: Vec::new() }
    }

    /// Keeps the coercions of an option that matched.
    pub fn absorb(&mut self, child: Cx) {
        self.coercions.extend(child.coercions);
    }
}

/// A type mismatch: `expected` was due at `at`.
pub fn type_error(v: &Json<'_>, at: &Path<'_>, expected: &'static str) -> Rejection {
    Rejection::violation(at, Keyword::Type, expected, v.kind())
}

/// The number at `at`, reading a numeric string in lenient mode (recorded) and
/// rejecting it in strict mode.
pub fn number(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx, expected: &'static str) -> Result<Number, Rejection> {
    match v {
        Json::Number(n) => Ok(*n),
        Json::String(s) => match numeric_string(s) {
            Some(n) if cx.lenient => {
                cx.coercions.push(Coercion { pointer: at.pointer(), text: s.to_string() });
                Ok(n)
            }
            Some(_) => Err(Rejection::numeric_string(at, expected)),
            None => Err(type_error(v, at, expected)),
        },
        _ => Err(type_error(v, at, expected)),
    }
}

/// The number a string spells in JSON number syntax (`"42"`, `"-1.5e3"`), if any.
pub fn numeric_string(s: &str) -> Option<Number> {
    let b = s.as_bytes();
    let starts_like_number = matches!(b.first(), Some(b'-' | b'0'..=b'9'));
    if !starts_like_number || b.len() > 64 {
        return None;
    }
    match Json::parse(b) {
        Ok(Json::Number(n)) => Some(n),
        _ => None,
    }
}

/// An `integer` held in `i64`, within `bounds`.
pub fn integer_i64(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx, bounds: &NumberBounds) -> Result<i64, Rejection> {
    let n = number(v, at, cx, "integer")?;
    let i = match n.as_i64() {
        Some(i) => i,
        None if !n.is_integer() => return Err(Rejection::violation(at, Keyword::Type, "integer", JsonKind::Number)),
        None if n.as_f64() < 0.0 => return Err(out_of_range(at, Keyword::Minimum, "integer >= -9223372036854775808")),
        None => return Err(out_of_range(at, Keyword::Maximum, "integer <= 9223372036854775807")),
    };
    bounded_int(i128::from(i), at, bounds, "integer")?;
    Ok(i)
}

/// An `integer` held in `u64`, within `bounds` (whose minimum is at least 0).
pub fn integer_u64(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx, bounds: &NumberBounds) -> Result<u64, Rejection> {
    let n = number(v, at, cx, "integer")?;
    let u = match n.as_u64() {
        Some(u) => u,
        None if !n.is_integer() => return Err(Rejection::violation(at, Keyword::Type, "integer", JsonKind::Number)),
        // Negative: report the schema's own lower bound, which excludes it.
        None if n.as_f64() < 0.0 => {
            bounded(n.as_f64(), at, bounds, "integer")?;
            return Err(out_of_range(at, Keyword::Minimum, "integer >= 0"));
        }
        None => return Err(out_of_range(at, Keyword::Maximum, "integer <= 18446744073709551615")),
    };
    bounded_int(i128::from(u), at, bounds, "integer")?;
    Ok(u)
}

/// A `number` within `bounds`.
pub fn number_f64(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx, bounds: &NumberBounds) -> Result<f64, Rejection> {
    let n = number(v, at, cx, "number")?;
    // Integers are compared exactly: 2^53 + 1 is odd, whatever f64 says.
    match n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from)) {
        Some(i) => bounded_int(i, at, bounds, "number")?,
        None => bounded(n.as_f64(), at, bounds, "number")?,
    }
    Ok(n.as_f64())
}

/// How the integer `i` compares with the bound `b`, exactly.
fn cmp_int(i: i128, b: f64) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    // Up to 2^53 in magnitude a double holds the integer exactly, so comparing
    // doubles is comparing the numbers (a bound is never NaN).
    if let Ok(small) = i64::try_from(i)
        && small.unsigned_abs() <= 1 << 53
    {
        return (small as f64).partial_cmp(&b).unwrap_or(Ordering::Less);
    }
    if b >= 1.0e38 {
        return Ordering::Less;
    }
    if b <= -1.0e38 {
        return Ordering::Greater;
    }
    // ⌊b⌋ as an integer, and whether it is b itself: below 2^63 by truncation
    // (one instruction; exact, since a truncated double is an integer it can
    // hold), beyond that b itself (every double past 2^53 is an integer).
    let (floor, whole) = if b.abs() < 9.0e18 {
        let t = b as i64;
        let tf = t as f64;
        if tf > b { (i128::from(t - 1), false) } else { (i128::from(t), tf == b) }
    } else {
        (b as i128, true)
    };
    match i.cmp(&floor) {
        Ordering::Equal if !whole => Ordering::Less,
        other => other,
    }
}

/// [`bounded`] for an integer value, compared exactly with every bound.
pub fn bounded_int(i: i128, at: &Path<'_>, b: &NumberBounds, noun: &'static str) -> Result<(), Rejection> {
    use std::cmp::Ordering::{Greater, Less};
    let fail = |keyword: Keyword, op: &str, limit: f64| Err(Rejection::violation(at, keyword, format!("{noun} {op} {}", show_number(limit)), JsonKind::Integer));
    if let Some(m) = b.minimum.filter(|m| cmp_int(i, *m) == Less) {
        return fail(Keyword::Minimum, ">=", m);
    }
    if let Some(m) = b.exclusive_minimum.filter(|m| cmp_int(i, *m) != Greater) {
        return fail(Keyword::ExclusiveMinimum, ">", m);
    }
    if let Some(m) = b.maximum.filter(|m| cmp_int(i, *m) == Greater) {
        return fail(Keyword::Maximum, "<=", m);
    }
    if let Some(m) = b.exclusive_maximum.filter(|m| cmp_int(i, *m) != Less) {
        return fail(Keyword::ExclusiveMaximum, "<", m);
    }
    let multiple = |m: f64| {
        if m.fract() == 0.0 && m.abs() < 1.0e38 && m != 0.0 { i % (m as i128) == 0 } else { is_multiple(i as f64, m) }
    };
    if let Some(m) = b.multiple_of.filter(|m| !multiple(*m)) {
        return Err(Rejection::violation(at, Keyword::MultipleOf, format!("a multiple of {}", show_number(m)), JsonKind::Integer));
    }
    Ok(())
}

fn out_of_range(at: &Path<'_>, keyword: Keyword, expected: &'static str) -> Rejection {
    Rejection::violation(at, keyword, expected, JsonKind::Integer)
}

/// Checks `x` against every numeric keyword, in a fixed order.
pub fn bounded(x: f64, at: &Path<'_>, b: &NumberBounds, noun: &'static str) -> Result<(), Rejection> {
    let found = if x.fract() == 0.0 { JsonKind::Integer } else { JsonKind::Number };
    let fail = |keyword: Keyword, op: &str, limit: f64| Err(Rejection::violation(at, keyword, format!("{noun} {op} {}", show_number(limit)), found));
    if let Some(m) = b.minimum.filter(|m| x < *m) {
        return fail(Keyword::Minimum, ">=", m);
    }
    if let Some(m) = b.exclusive_minimum.filter(|m| x <= *m) {
        return fail(Keyword::ExclusiveMinimum, ">", m);
    }
    if let Some(m) = b.maximum.filter(|m| x > *m) {
        return fail(Keyword::Maximum, "<=", m);
    }
    if let Some(m) = b.exclusive_maximum.filter(|m| x >= *m) {
        return fail(Keyword::ExclusiveMaximum, "<", m);
    }
    if let Some(m) = b.multiple_of.filter(|m| !is_multiple(x, *m)) {
        return Err(Rejection::violation(at, Keyword::MultipleOf, format!("a multiple of {}", show_number(m)), found));
    }
    Ok(())
}

/// Whether `x` is a multiple of `m`: exact for integers, within float rounding otherwise.
pub fn is_multiple(x: f64, m: f64) -> bool {
    if x.fract() == 0.0 && m.fract() == 0.0 && x.abs() < 9.0e15 && m.abs() < 9.0e15 {
        return (x as i64) % (m as i64) == 0;
    }
    // Every integer is a multiple of 1/k (`0.5`), however large: x / m may overflow.
    if x.fract() == 0.0 && (1.0 / m).fract() == 0.0 {
        return true;
    }
    let q = x / m;
    q.is_finite() && (q - q.round()).abs() <= 1e-9 * q.abs().max(1.0)
}

/// A number as a person writes it (`0.01`, `100`, `1e21`).
pub fn show_number(x: f64) -> String {
    let mut buf = ryu_js::Buffer::new();
    buf.format(x).to_owned()
}

/// The string at `at`.
pub fn string<'j>(v: &'j Json<'_>, at: &Path<'_>) -> Result<&'j str, Rejection> {
    match v {
        Json::String(s) => Ok(s),
        _ => Err(type_error(v, at, "string")),
    }
}

/// `minLength` / `maxLength`, counted in Unicode code points.
pub fn length(s: &str, at: &Path<'_>, min: Option<u64>, max: Option<u64>) -> Result<(), Rejection> {
    // A character takes one to four bytes: bounds met by the byte count alone need no count.
    let bytes = s.len() as u64;
    if max.is_none_or(|m| bytes <= m) && min.is_none_or(|m| bytes.div_ceil(4) >= m) {
        return Ok(());
    }
    let n = s.chars().count() as u64;
    if let Some(m) = min.filter(|m| n < *m) {
        return Err(Rejection::violation(at, Keyword::MinLength, format!("at least {m} characters"), JsonKind::String));
    }
    if let Some(m) = max.filter(|m| n > *m) {
        return Err(Rejection::violation(at, Keyword::MaxLength, format!("at most {m} characters"), JsonKind::String));
    }
    Ok(())
}

/// `pattern`: `re` must match somewhere in `s` (JSON Schema patterns are not anchored).
pub fn pattern(s: &str, at: &Path<'_>, re: &Regex, source: &str) -> Result<(), Rejection> {
    if re.is_match(s) { Ok(()) } else { Err(Rejection::violation(at, Keyword::Pattern, pattern_expected(source), JsonKind::String)) }
}

/// What a `pattern` violation says was expected.
pub(crate) fn pattern_expected(source: &str) -> Cow<'static, str> {
    let shown: String = source.chars().take(80).collect();
    Cow::Owned(format!("a string matching /{shown}/"))
}

/// `format`.
pub fn format(s: &str, at: &Path<'_>, f: Format) -> Result<(), Rejection> {
    if f.matches(s) { Ok(()) } else { Err(Rejection::violation(at, Keyword::Format, format!("a {} string", f.name()), JsonKind::String)) }
}

/// The boolean at `at`.
pub fn boolean(v: &Json<'_>, at: &Path<'_>) -> Result<bool, Rejection> {
    match v {
        Json::Bool(b) => Ok(*b),
        _ => Err(type_error(v, at, "boolean")),
    }
}

/// `null` at `at`.
pub fn null(v: &Json<'_>, at: &Path<'_>) -> Result<(), Rejection> {
    match v {
        Json::Null => Ok(()),
        _ => Err(type_error(v, at, "null")),
    }
}

/// The elements of the array at `at`.
pub fn array<'j, 'a>(v: &'j Json<'a>, at: &Path<'_>) -> Result<&'j [Json<'a>], Rejection> {
    match v {
        Json::Array(a) => Ok(a),
        _ => Err(type_error(v, at, "array")),
    }
}

/// `minItems` / `maxItems` / `uniqueItems` of the array at `at`.
pub fn items(a: &[Json<'_>], at: &Path<'_>, min: Option<u64>, max: Option<u64>, unique: bool) -> Result<(), Rejection> {
    item_count(a.len(), at, min, max)?;
    if unique {
        for (i, x) in a.iter().enumerate() {
            if a[..i].iter().any(|y| y == x) {
                return Err(Rejection::violation(at, Keyword::UniqueItems, "unique items", JsonKind::Array));
            }
        }
    }
    Ok(())
}

/// `minItems` / `maxItems` of an array of `n` items.
pub fn item_count(n: usize, at: &Path<'_>, min: Option<u64>, max: Option<u64>) -> Result<(), Rejection> {
    let n = n as u64;
    if let Some(m) = min.filter(|m| n < *m) {
        return Err(Rejection::violation(at, Keyword::MinItems, format!("at least {m} items"), JsonKind::Array));
    }
    if let Some(m) = max.filter(|m| n > *m) {
        return Err(Rejection::violation(at, Keyword::MaxItems, format!("at most {m} items"), JsonKind::Array));
    }
    Ok(())
}

/// The members of the object at `at`.
pub fn object<'j, 'a>(v: &'j Json<'a>, at: &Path<'_>) -> Result<&'j [(Cow<'a, str>, Json<'a>)], Rejection> {
    match v {
        Json::Object(o) => Ok(o),
        _ => Err(type_error(v, at, "object")),
    }
}

/// `minProperties` / `maxProperties` of the object at `at`.
pub fn property_count(n: usize, at: &Path<'_>, min: Option<u64>, max: Option<u64>) -> Result<(), Rejection> {
    let n = n as u64;
    if let Some(m) = min.filter(|m| n < *m) {
        return Err(Rejection::violation(at, Keyword::MinProperties, format!("at least {m} properties"), JsonKind::Object));
    }
    if let Some(m) = max.filter(|m| n > *m) {
        return Err(Rejection::violation(at, Keyword::MaxProperties, format!("at most {m} properties"), JsonKind::Object));
    }
    Ok(())
}

/// Rejects the first key that appears twice among `keys` (in document order).
pub fn distinct_keys(keys: &[&str], at: &Path<'_>) -> Result<(), Rejection> {
    if keys.len() <= 16 {
        for (i, k) in keys.iter().enumerate() {
            if keys[..i].contains(k) {
                return Err(Rejection::duplicate_key(at, k));
            }
        }
    } else {
        let mut seen = std::collections::HashSet::with_capacity(keys.len());
        for k in keys {
            if !seen.insert(*k) {
                return Err(Rejection::duplicate_key(at, k));
            }
        }
    }
    Ok(())
}

/// Rejects duplicate keys anywhere inside a free-form value.
pub fn no_duplicates_deep(v: &Json<'_>, at: &Path<'_>) -> Result<(), Rejection> {
    match v {
        Json::Array(a) => a.iter().enumerate().try_for_each(|(i, x)| no_duplicates_deep(x, &at.index(i))),
        Json::Object(o) => {
            distinct_keys(&o.iter().map(|(k, _)| k.as_ref()).collect::<Vec<_>>(), at)?;
            o.iter().try_for_each(|(k, x)| no_duplicates_deep(x, &at.key(k)))
        }
        _ => Ok(()),
    }
}

/// `enum`: `v` must equal one of `allowed`; `expected` lists them in words.
pub fn one_of_values(v: &Json<'_>, at: &Path<'_>, allowed: &[Json<'_>], expected: impl FnOnce() -> Cow<'static, str>) -> Result<(), Rejection> {
    if allowed.iter().any(|a| a == v) { Ok(()) } else { Err(Rejection::violation(at, Keyword::Enum, expected(), v.kind())) }
}

/// Picks the error to report when no option of a union matched: the one
/// option whose type fits the value explains best; otherwise the union itself.
pub fn union_error(at: &Path<'_>, v: &Json<'_>, keyword: Keyword, expected: Cow<'static, str>, errors: Vec<Rejection>) -> Rejection {
    let here = at.pointer();
    let mut fitting = errors.into_iter().filter(|e| !(e.keyword() == Some(Keyword::Type) && !e.is_numeric_string() && e.pointer() == here));
    match (fitting.next(), fitting.next()) {
        (Some(only), None) => only,
        _ => Rejection::violation(at, keyword, expected, v.kind()),
    }
}

/// `oneOf` matched more than one option.
pub fn one_of_ambiguous(at: &Path<'_>, v: &Json<'_>, expected: Cow<'static, str>) -> Rejection {
    Rejection::violation(at, Keyword::OneOf, expected, v.kind())
}

#[cfg(test)]
mod tests {
    use super::cmp_int;
    use std::cmp::Ordering;

    /// The exact order of an integer and a double, by rational arithmetic on the double's bits.
    fn exact(i: i128, b: f64) -> Ordering {
        let floor = b.floor();
        if floor.abs() >= 1.0e38 {
            return if b > 0.0 { Ordering::Less } else { Ordering::Greater };
        }
        match i.cmp(&(floor as i128)) {
            Ordering::Equal if floor != b => Ordering::Less,
            other => other,
        }
    }

    #[test]
    fn integer_against_bound_is_exact_at_every_scale() {
        let bounds: [f64; 25] = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.5,
            -2.5,
            1e15 + 0.5,
            -(1e15 + 0.5),
            4503599627370495.5,
            9007199254740992.0,
            -9007199254740992.0,
            9007199254740994.0,
            9007199254740993.0,
            8.999e18,
            -8.999e18,
            9.0e18,
            9.3e18,
            -9.3e18,
            1.7e19,
            1.0e30,
            -1.0e30,
            1.0e38,
            -1.0e38,
        ];
        for b in bounds {
            let f = b.floor() as i128;
            for i in [f - 1, f, f + 1, 0, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1, i128::from(i64::MAX), i128::from(i64::MIN), i128::from(u64::MAX)] {
                assert_eq!(cmp_int(i, b), exact(i, b), "{i} vs {b}");
            }
        }
    }
}
