//! An order-preserving JSON tree that keeps duplicate keys, so that the
//! resolver (not the parser) decides what a duplicate means.
//!
//! `serde_json::Value` sorts object keys and lets the last duplicate win;
//! both lose information a closed-world check needs. [`Json`] keeps every
//! member in document order and borrows strings from the input when it can.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

mod parser;

pub use parser::{KeyMiss, KeyStop, Reader, is_plain_key};

/// A parsed JSON value. Objects keep their members in document order,
/// duplicates included.
#[derive(Debug, Clone)]
pub enum Json<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, kept as the parser read it.
    Number(Number),
    /// A string (borrowed from the input when it had no escapes).
    String(Cow<'a, str>),
    /// An array.
    Array(Vec<Json<'a>>),
    /// An object: members in document order, duplicates kept.
    Object(Vec<(Cow<'a, str>, Json<'a>)>),
}

/// A JSON number as read: a non-negative integer, a negative integer or a float.
#[derive(Debug, Clone, Copy)]
pub enum Number {
    /// An integer literal that fits `u64`.
    PosInt(u64),
    /// A negative integer literal that fits `i64`.
    NegInt(i64),
    /// Any other number (fraction, exponent, or an integer beyond 64 bits).
    Float(f64),
}

/// The kind of a JSON value, as JSON Schema names the types.
/// A number with a zero fractional part (`1.0`) is an `integer`, as JSON Schema says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JsonKind {
    /// `null`
    Null,
    /// `true` / `false`
    Boolean,
    /// a number with no fractional part
    Integer,
    /// any other number
    Number,
    /// a string
    String,
    /// an array
    Array,
    /// an object
    Object,
}

impl JsonKind {
    /// The JSON Schema type name.
    pub fn as_str(self) -> &'static str {
        match self {
            JsonKind::Null => "null",
            JsonKind::Boolean => "boolean",
            JsonKind::Integer => "integer",
            JsonKind::Number => "number",
            JsonKind::String => "string",
            JsonKind::Array => "array",
            JsonKind::Object => "object",
        }
    }
}

impl fmt::Display for JsonKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Number {
    /// The value as `f64` (exact for integers up to 2^53).
    pub fn as_f64(self) -> f64 {
        match self {
            Number::PosInt(u) => u as f64,
            Number::NegInt(i) => i as f64,
            Number::Float(f) => f,
        }
    }

    /// Whether JSON Schema counts this number as an `integer`.
    pub fn is_integer(self) -> bool {
        match self {
            Number::PosInt(_) | Number::NegInt(_) => true,
            Number::Float(f) => f.is_finite() && f.fract() == 0.0,
        }
    }

    /// The value as `i64` when it is an integer in range.
    pub fn as_i64(self) -> Option<i64> {
        match self {
            Number::PosInt(u) => i64::try_from(u).ok(),
            Number::NegInt(i) => Some(i),
            Number::Float(f) => float_to_int(f, i64::MIN as f64, 9_223_372_036_854_775_808.0).map(|f| f as i64),
        }
    }

    /// The value as `u64` when it is a non-negative integer in range.
    pub fn as_u64(self) -> Option<u64> {
        match self {
            Number::PosInt(u) => Some(u),
            Number::NegInt(_) => None,
            Number::Float(f) => float_to_int(f, 0.0, 18_446_744_073_709_551_616.0).map(|f| f as u64),
        }
    }
}

/// `f` when it is integral and in `[lo, hi)`.
fn float_to_int(f: f64, lo: f64, hi: f64) -> Option<f64> {
    (f.is_finite() && f.fract() == 0.0 && f >= lo && f < hi).then_some(f)
}

impl PartialEq for Number {
    /// JSON Schema equality: `1` equals `1.0`.
    fn eq(&self, other: &Self) -> bool {
        match (*self, *other) {
            (Number::PosInt(a), Number::PosInt(b)) => a == b,
            (Number::NegInt(a), Number::NegInt(b)) => a == b,
            (Number::PosInt(_), Number::NegInt(_)) | (Number::NegInt(_), Number::PosInt(_)) => false,
            (a, b) => a.as_f64() == b.as_f64(),
        }
    }
}

impl PartialEq for Json<'_> {
    /// JSON Schema equality: numbers by value, objects regardless of member order.
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Json::Null, Json::Null) => true,
            (Json::Bool(a), Json::Bool(b)) => a == b,
            (Json::Number(a), Json::Number(b)) => a == b,
            (Json::String(a), Json::String(b)) => a == b,
            (Json::Array(a), Json::Array(b)) => a == b,
            (Json::Object(a), Json::Object(b)) => a.len() == b.len() && a.iter().all(|(k, v)| b.iter().any(|(k2, v2)| k == k2 && v == v2)),
            _ => false,
        }
    }
}

/// Why a byte string is not a JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The parser's message, with line and column.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

impl<'a> Json<'a> {
    /// Parses one JSON value from `bytes`; trailing non-whitespace is an error.
    /// Nesting of 128 levels or more is an error, never a stack overflow.
    pub fn parse(bytes: &'a [u8]) -> Result<Json<'a>, ParseError> {
        match std::str::from_utf8(bytes) {
            Ok(text) => parser::parse(text),
            Err(e) => Err(parser::not_utf8(bytes, e)),
        }
    }

    /// Borrows a `serde_json::Value` as a tree (its duplicates are already gone).
    pub fn from_value(value: &'a serde_json::Value) -> Json<'a> {
        match value {
            serde_json::Value::Null => Json::Null,
            serde_json::Value::Bool(b) => Json::Bool(*b),
            serde_json::Value::Number(n) => Json::Number(Number::from(n)),
            serde_json::Value::String(s) => Json::String(Cow::Borrowed(s)),
            serde_json::Value::Array(a) => Json::Array(a.iter().map(Json::from_value).collect()),
            serde_json::Value::Object(o) => Json::from_map(o),
        }
    }

    /// Borrows a `serde_json` object as a tree.
    pub fn from_map(map: &'a serde_json::Map<String, serde_json::Value>) -> Json<'a> {
        Json::Object(map.iter().map(|(k, v)| (Cow::Borrowed(k.as_str()), Json::from_value(v))).collect())
    }

    /// The kind of this value.
    pub fn kind(&self) -> JsonKind {
        match self {
            Json::Null => JsonKind::Null,
            Json::Bool(_) => JsonKind::Boolean,
            Json::Number(n) if n.is_integer() => JsonKind::Integer,
            Json::Number(_) => JsonKind::Number,
            Json::String(_) => JsonKind::String,
            Json::Array(_) => JsonKind::Array,
            Json::Object(_) => JsonKind::Object,
        }
    }

    /// The value at the JSON pointer `pointer` (RFC 6901; `""` is the whole value).
    pub fn pointer(&self, pointer: &str) -> Option<&Json<'a>> {
        if pointer.is_empty() {
            return Some(self);
        }
        let mut at = self;
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            at = match at {
                Json::Object(_) => at.get(&token)?,
                Json::Array(a) => a.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(at)
    }

    /// The first member named `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, when this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// Detaches the tree from the input it borrowed from.
    pub fn into_owned(self) -> Json<'static> {
        match self {
            Json::Null => Json::Null,
            Json::Bool(b) => Json::Bool(b),
            Json::Number(n) => Json::Number(n),
            Json::String(s) => Json::String(Cow::Owned(s.into_owned())),
            Json::Array(a) => Json::Array(a.into_iter().map(Json::into_owned).collect()),
            Json::Object(o) => Json::Object(o.into_iter().map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned())).collect()),
        }
    }

    /// Converts to a `serde_json::Value` (for a duplicate-free tree this loses nothing
    /// but member order).
    pub fn to_value(&self) -> serde_json::Value {
        match self {
            Json::Null => serde_json::Value::Null,
            Json::Bool(b) => serde_json::Value::Bool(*b),
            Json::Number(n) => match *n {
                Number::PosInt(u) => u.into(),
                Number::NegInt(i) => i.into(),
                Number::Float(f) => serde_json::Number::from_f64(f).map_or(serde_json::Value::Null, Into::into),
            },
            Json::String(s) => serde_json::Value::String(s.to_string()),
            Json::Array(a) => serde_json::Value::Array(a.iter().map(Json::to_value).collect()),
            Json::Object(o) => {
                let mut map = serde_json::Map::new();
                for (k, v) in o.iter() {
                    map.insert(k.to_string(), v.to_value());
                }
                serde_json::Value::Object(map)
            }
        }
    }

    /// Compact JSON text with members in document order.
    pub fn to_json_string(&self) -> String {
        let mut out = String::new();
        self.write_compact(&mut out);
        out
    }

    fn write_compact(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => match *n {
                Number::PosInt(u) => out.push_str(&u.to_string()),
                Number::NegInt(i) => out.push_str(&i.to_string()),
                Number::Float(f) => out.push_str(&serde_json::Number::from_f64(f).map_or("null".into(), |n| n.to_string())),
            },
            Json::String(s) => out.push_str(&serde_json::to_string(s.as_ref()).unwrap_or_default()),
            Json::Array(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write_compact(out);
                }
                out.push(']');
            }
            Json::Object(o) => {
                out.push('{');
                for (i, (k, v)) in o.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(k.as_ref()).unwrap_or_default());
                    out.push(':');
                    v.write_compact(out);
                }
                out.push('}');
            }
        }
    }
}

impl From<&serde_json::Number> for Number {
    fn from(n: &serde_json::Number) -> Number {
        if let Some(u) = n.as_u64() {
            Number::PosInt(u)
        } else if let Some(i) = n.as_i64() {
            Number::NegInt(i)
        } else {
            Number::Float(n.as_f64().unwrap_or(f64::NAN))
        }
    }
}

impl<'de> Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(b))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(Number::PosInt(u)))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(if i >= 0 { Number::PosInt(i as u64) } else { Number::NegInt(i) }))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Json<'de>, E> {
        Ok(Json::Number(Number::Float(f)))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let value = map.next_value()?;
            members.push((key.0, value));
        }
        Ok(Json::Object(members))
    }
}

/// An object key, borrowed when the input allows.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_duplicates_and_order() {
        let j = Json::parse(br#"{"b":1,"a":2,"b":3}"#).unwrap();
        let Json::Object(m) = j else { panic!() };
        let keys: Vec<&str> = m.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["b", "a", "b"]);
    }

    #[test]
    fn integer_semantics() {
        let n = |s: &str| match Json::parse(s.as_bytes()).unwrap() {
            Json::Number(n) => n,
            _ => panic!(),
        };
        assert!(n("1.0").is_integer());
        assert!(!n("1.5").is_integer());
        assert_eq!(n("1.0").as_i64(), Some(1));
        assert_eq!(n("-1").as_u64(), None);
        assert_eq!(n("18446744073709551616").as_u64(), None);
        assert_eq!(n("9223372036854775808").as_i64(), None);
        assert_eq!(n("1"), n("1.0"));
    }

    #[test]
    fn strings_borrow_and_bad_utf8_is_located() {
        let j = Json::parse(r#"{"k":"v\u00e9","n":"é"}"#.as_bytes()).unwrap();
        assert!(matches!(j.get("n"), Some(Json::String(Cow::Borrowed("é")))));
        assert!(matches!(j.get("k"), Some(Json::String(Cow::Owned(s))) if s == "vé"));
        let err = Json::parse(b"{\"k\":\"\xff\"}").unwrap_err();
        assert_eq!(err.message, "invalid UTF-8 at line 1 column 7");
    }

    #[test]
    fn a_key_is_compared_as_written() {
        // After `{`, the key: matched exactly (quotes, colon, whitespace), else nothing read.
        let after_key = |text: &str, key: &str| {
            let mut r = Reader::new(text.as_bytes()).expect("UTF-8");
            assert_eq!(r.object(), Some(true), "{text}");
            r.key_is(key).then(|| r.number().and_then(|n| n.as_u64()))
        };
        assert_eq!(after_key(r#"{"path":1}"#, "path"), Some(Some(1)));
        assert_eq!(after_key("{ \n\"path\" \t: 1}", "path"), Some(Some(1)));
        for other in [r#"{"path2":1}"#, r#"{"pat":1}"#, r#"{"pat\u0068":1}"#, r#"{"path" 1}"#, r#"{"path""#, r#"{"path"#, r#"{path:1}"#] {
            assert_eq!(after_key(other, "path"), None, "{other}");
        }
        // Not matched: the key is read from where it starts.
        let mut r = Reader::new(br#"{"path" 1}"#).expect("UTF-8");
        r.object();
        assert!(!r.key_is("path"));
        assert_eq!(r.string().as_deref(), Some("path"));
        assert!(is_plain_key("path_é ~") && !is_plain_key("a\"b") && !is_plain_key("a\\b") && !is_plain_key("a\nb"));
    }

    #[test]
    fn rejects_trailing_bytes_and_deep_nesting() {
        assert!(Json::parse(b"{} x").is_err());
        let deep = "[".repeat(100_000);
        assert!(Json::parse(deep.as_bytes()).is_err());
    }
}
