//! Reading keyword values, shared by the typed compiler and the specification
//! validator's compiler, so that both accept and refuse the same keyword values
//! with the same words.

use super::error::{SchemaError, err};
use crate::check::NumberBounds;
use crate::json::Json;

/// A non-negative integer keyword (`minLength`, `maxItems`, ...); beyond `u64`, `u64::MAX`.
pub(super) fn count<'j>(get: impl Fn(&str) -> Option<&'j Json<'static>>, word: &str, ptr: &str) -> Result<Option<u64>, SchemaError> {
    match get(word) {
        None => Ok(None),
        Some(Json::Number(n)) if n.is_integer() && n.as_f64() >= 0.0 => Ok(Some(n.as_u64().unwrap_or(u64::MAX))),
        Some(_) => err(ptr, word, format!("`{word}` must be a non-negative integer")),
    }
}

/// The numeric keywords: `minimum`, `maximum`, the exclusives (numbers, or draft-04
/// booleans that make the plain bound exclusive) and a positive `multipleOf`.
pub(super) fn bounds<'j>(get: impl Fn(&str) -> Option<&'j Json<'static>>, ptr: &str) -> Result<NumberBounds, SchemaError> {
    let num = |word: &str| -> Result<Option<f64>, SchemaError> {
        match get(word) {
            None | Some(Json::Bool(_)) => Ok(None),
            Some(Json::Number(n)) => Ok(Some(n.as_f64())),
            Some(_) => err(ptr, word, format!("`{word}` must be a number")),
        }
    };
    let mut b =
        NumberBounds { minimum: num("minimum")?, maximum: num("maximum")?, exclusive_minimum: num("exclusiveMinimum")?, exclusive_maximum: num("exclusiveMaximum")?, multiple_of: num("multipleOf")? };
    if let Some(Json::Bool(true)) = get("exclusiveMinimum") {
        b.exclusive_minimum = b.minimum.take();
    }
    if let Some(Json::Bool(true)) = get("exclusiveMaximum") {
        b.exclusive_maximum = b.maximum.take();
    }
    if b.multiple_of.is_some_and(|m| m <= 0.0 || !m.is_finite()) {
        return err(ptr, "multipleOf", "`multipleOf` must be a positive number");
    }
    Ok(b)
}
