//! Conversion of JSON trees into strictly typed Rust values. Generated types
//! implement [`FromJson`]; this module covers the standard types they use.

use std::collections::BTreeMap;

use crate::check::{self, Cx, NumberBounds};
use crate::json::{Json, Reader};
use crate::path::Path;
use crate::rejection::Rejection;

/// A type that can be built from a JSON tree, rejecting with a classified
/// [`Rejection`] whatever its schema does not allow.
pub trait FromJson: Sized {
    /// Builds `Self` from `v`, found at `at`.
    fn from_json(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<Self, Rejection>;

    /// Reads `Self` straight from JSON text in strict mode, checking while it
    /// reads: `Some` exactly when [`FromJson::from_json`] of the same value
    /// accepts it, with the same result. `None` says only that the value is not
    /// accepted this way; the caller resolves the tree for the rejection.
    ///
    /// The default parses the value as a tree and converts it (what a scalar,
    /// whose tree allocates nothing, needs anyway); objects and arrays read
    /// member by member.
    fn read(r: &mut Reader<'_>) -> Option<Self> {
        let v = r.value()?;
        Self::from_json(&v, &Path::root(), &mut Cx::strict()).ok()
    }
}

impl FromJson for String {
    fn from_json(v: &Json<'_>, at: &Path<'_>, _: &mut Cx) -> Result<Self, Rejection> {
        check::string(v, at).map(str::to_owned)
    }

    fn read(r: &mut Reader<'_>) -> Option<Self> {
        r.string().map(|s| s.into_owned())
    }
}

impl FromJson for bool {
    fn from_json(v: &Json<'_>, at: &Path<'_>, _: &mut Cx) -> Result<Self, Rejection> {
        check::boolean(v, at)
    }

    fn read(r: &mut Reader<'_>) -> Option<Self> {
        r.boolean()
    }
}

impl FromJson for () {
    fn from_json(v: &Json<'_>, at: &Path<'_>, _: &mut Cx) -> Result<Self, Rejection> {
        check::null(v, at)
    }
}

impl FromJson for i64 {
    fn from_json(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<Self, Rejection> {
        check::integer_i64(v, at, cx, &NumberBounds::default())
    }

    fn read(r: &mut Reader<'_>) -> Option<Self> {
        read_number(r, Self::from_json)
    }
}

impl FromJson for u64 {
    fn from_json(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<Self, Rejection> {
        check::integer_u64(v, at, cx, &NumberBounds::default())
    }

    fn read(r: &mut Reader<'_>) -> Option<Self> {
        read_number(r, Self::from_json)
    }
}

impl FromJson for f64 {
    fn from_json(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<Self, Rejection> {
        check::number_f64(v, at, cx, &NumberBounds::default())
    }

    fn read(r: &mut Reader<'_>) -> Option<Self> {
        read_number(r, Self::from_json)
    }
}

/// A number read as a number, not as a tree, and converted by `convert` in
/// strict mode (a numeric string, which only lenient mode takes, is left to the
/// tree). The primitive numbers' reads and the bounded number types' share it.
pub(crate) fn read_number<T>(r: &mut Reader<'_>, convert: impl FnOnce(&Json<'_>, &Path<'_>, &mut Cx) -> Result<T, Rejection>) -> Option<T> {
    convert(&Json::Number(r.number()?), &Path::root(), &mut Cx::strict()).ok()
}

/// Any JSON value (a free-form schema); duplicate keys inside are still rejected.
impl FromJson for serde_json::Value {
    fn from_json(v: &Json<'_>, at: &Path<'_>, _: &mut Cx) -> Result<Self, Rejection> {
        check::no_duplicates_deep(v, at)?;
        Ok(v.to_value())
    }
}

/// `null` or `T` (a nullable schema).
impl<T: FromJson> FromJson for Option<T> {
    fn from_json(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<Self, Rejection> {
        match v {
            Json::Null => Ok(None),
            _ => T::from_json(v, at, cx).map(Some),
        }
    }

    fn read(r: &mut Reader<'_>) -> Option<Self> {
        if r.null() { Some(None) } else { T::read(r).map(Some) }
    }
}

impl<T: FromJson> FromJson for Box<T> {
    fn from_json(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<Self, Rejection> {
        T::from_json(v, at, cx).map(Box::new)
    }

    fn read(r: &mut Reader<'_>) -> Option<Self> {
        T::read(r).map(Box::new)
    }
}

/// An array with no count or uniqueness constraint.
impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<Self, Rejection> {
        convert_elements(check::array(v, at)?, 0, at, cx)
    }

    fn read(r: &mut Reader<'_>) -> Option<Self> {
        read_elements(r)
    }
}

/// The elements of the array that is the reader's next value, each read as `T`.
pub(crate) fn read_elements<T: FromJson>(r: &mut Reader<'_>) -> Option<Vec<T>> {
    let mut out = Vec::new();
    if r.array()? {
        loop {
            out.push(T::read(r)?);
            if !r.more_items()? {
                break;
            }
        }
    }
    Some(out)
}

/// Converts the elements of an array from index `start` on (after a tuple prefix).
pub(crate) fn convert_elements<T: FromJson>(items: &[Json<'_>], start: usize, at: &Path<'_>, cx: &mut Cx) -> Result<Vec<T>, Rejection> {
    // A plain loop: generated code instantiates this once per element type,
    // and iterator adapters would multiply the code each instance costs. No
    // capacity up front: an element type can be far larger than its JSON, and
    // a hostile array should not reserve for elements that fail.
    // After an element's H3, the rest are still converted: an H2 in one of them wins.
    let mut out = Vec::new();
    let mut first = None;
    for (i, item) in items.iter().enumerate().skip(start) {
        match T::from_json(item, &at.index(i), cx) {
            Ok(x) if first.is_none() => out.push(x),
            Ok(_) => {}
            Err(e) => crate::validate::signature_first(&mut first, Err(e))?,
        }
    }
    first.map_or(Ok(out), Err)
}

/// A map whose every value matches one schema (`additionalProperties: {...}`, no `properties`).
impl<T: FromJson> FromJson for BTreeMap<String, T> {
    fn from_json(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<Self, Rejection> {
        let members = check::object(v, at)?;
        check::distinct_keys(&members.iter().map(|(k, _)| k.as_ref()).collect::<Vec<_>>(), at)?;
        members.iter().map(|(k, x)| Ok((k.to_string(), T::from_json(x, &at.key(k), cx)?))).collect()
    }
}
