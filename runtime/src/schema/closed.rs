//! The registry schema with toolseal's closed-world rule written out, so that
//! the specification validator ([`crate::schema::spec`]), another validator
//! (the `jsonschema` crate as a test oracle) or a model API that takes a schema
//! enforces exactly what toolseal enforces.

use std::borrow::Cow;

use super::place::{Place, implied_types, inferred_type};
use crate::json::Json;

/// Returns `schema` (a tool's `inputSchema`) with the closed world written out:
/// - the arguments object is an object (`"type": "object"` when the root names no type);
/// - the arguments object, and every object schema that declares `properties` or
///   `patternProperties` without `additionalProperties` / `unevaluatedProperties`,
///   admits no other key: `additionalProperties: false`, or `unevaluatedProperties: false`
///   where keys may also be declared in place (`allOf`, `$ref`, `if`, ...);
/// - schemas applied in place to the same object (members of `allOf`, `if`/`then`/`else`,
///   `dependentSchemas`, `not`, and the options of `anyOf`/`oneOf` beside declared
///   properties or an explicit `additionalProperties` / `unevaluatedProperties`) are
///   not closed themselves: the object around them is.
pub fn closed_world(schema: &Json<'static>) -> Json<'static> {
    close(schema, Place::Root, false)
}

/// [`closed_world`] with the implied-type rule as well: a schema without `type`
/// whose keywords all belong to one type (`minLength` → string) must be of that type.
pub fn closed_world_implied_types(schema: &Json<'static>) -> Json<'static> {
    close(schema, Place::Root, true)
}

/// Keywords that apply other schemas to the same object, so that keys they declare count as declared.
const IN_PLACE: &[&str] = &["allOf", "anyOf", "oneOf", "$ref", "$dynamicRef", "if", "dependentSchemas", "dependencies"];

fn close(v: &Json<'static>, place: Place, implied: bool) -> Json<'static> {
    let Json::Object(members) = v else { return v.clone() };
    let has = |k: &str| members.iter().any(|(m, _)| m == k);
    let declares = has("properties") || has("patternProperties");
    let mut out: Vec<(Cow<'static, str>, Json<'static>)> = Vec::with_capacity(members.len() + 2);
    for (k, x) in members {
        let x = match k.as_ref() {
            "properties" | "patternProperties" | "$defs" | "definitions" => map_values(x, Place::Nested, implied),
            "dependentSchemas" => map_values(x, Place::Applicator, implied),
            "dependencies" => map_values(x, Place::Applicator, implied),
            "items" | "prefixItems" | "additionalItems" | "additionalProperties" | "unevaluatedProperties" | "unevaluatedItems" | "contains" | "propertyNames" => each(x, Place::Nested, implied),
            // Beside declared keys, or where the schema decides closure itself, the options apply in place.
            "anyOf" | "oneOf" if declares || place == Place::Applicator || has("additionalProperties") || has("unevaluatedProperties") => each(x, Place::Applicator, implied),
            "anyOf" | "oneOf" => each(x, Place::Nested, implied),
            "allOf" | "if" | "then" | "else" | "not" => each(x, Place::Applicator, implied),
            _ => x.clone(),
        };
        out.push((k.clone(), x));
    }
    if !has("type") {
        // Beside a reference, a combinator, `enum` or `const`, keywords imply no type of their own.
        let composite = ["$ref", "anyOf", "oneOf", "allOf", "enum", "const"].iter().any(|k| has(k));
        let present = if composite { Vec::new() } else { implied_types(members.iter().map(|(k, _)| k.as_ref())) };
        if let Some(t) = inferred_type(&present, place, implied) {
            out.push(("type".into(), Json::String(t.into())));
        }
    }
    let closes = (place == Place::Root || declares) && place != Place::Applicator;
    if closes && !has("additionalProperties") && !has("unevaluatedProperties") {
        let word = if IN_PLACE.iter().any(|k| has(k)) { "unevaluatedProperties" } else { "additionalProperties" };
        out.push((word.into(), Json::Bool(false)));
    }
    Json::Object(out)
}

fn each(v: &Json<'static>, place: Place, implied: bool) -> Json<'static> {
    match v {
        Json::Array(items) => Json::Array(items.iter().map(|x| close(x, place, implied)).collect()),
        other => close(other, place, implied),
    }
}

fn map_values(v: &Json<'static>, place: Place, implied: bool) -> Json<'static> {
    match v {
        Json::Object(m) => Json::Object(m.iter().map(|(k, x)| (k.clone(), close(x, place, implied))).collect()),
        other => other.clone(),
    }
}
