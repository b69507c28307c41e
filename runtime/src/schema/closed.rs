//! The registry schema with toolseal's closed-world rule written out, so that
//! the specification validator ([`crate::schema::spec`]), another validator
//! (the `jsonschema` crate as a test oracle) or a model API that takes a schema
//! enforces exactly what toolseal enforces.

use std::borrow::Cow;

use super::keywords::{implied_type, IMPLIED_TYPES};
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

#[derive(Clone, Copy, PartialEq)]
enum Place {
    Root,
    InPlace,
    Nested,
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
            "dependentSchemas" => map_values(x, Place::InPlace, implied),
            "dependencies" => map_values(x, Place::InPlace, implied),
            "items" | "prefixItems" | "additionalItems" | "additionalProperties" | "unevaluatedProperties" | "unevaluatedItems" | "contains" | "propertyNames" => {
                each(x, Place::Nested, implied)
            }
            // Beside declared keys, or where the schema decides closure itself, the options apply in place.
            "anyOf" | "oneOf" if declares || place == Place::InPlace || has("additionalProperties") || has("unevaluatedProperties") => each(x, Place::InPlace, implied),
            "anyOf" | "oneOf" => each(x, Place::Nested, implied),
            "allOf" | "if" | "then" | "else" | "not" => each(x, Place::InPlace, implied),
            _ => x.clone(),
        };
        out.push((k.clone(), x));
    }
    let composite = ["$ref", "anyOf", "oneOf", "allOf", "enum", "const"].iter().any(|k| has(k));
    if !has("type") && !composite {
        let present: Vec<&str> = IMPLIED_TYPES.into_iter().filter(|t| members.iter().any(|(k, _)| implied_type(k) == Some(*t))).collect();
        match (present.as_slice(), place) {
            ([one], _) if implied => out.push(("type".into(), Json::String((*one).into()))),
            (_, Place::Root) => out.push(("type".into(), Json::String("object".into()))),
            _ => {}
        }
    } else if !has("type") && place == Place::Root {
        out.push(("type".into(), Json::String("object".into())));
    }
    let closes = (place == Place::Root || declares) && place != Place::InPlace;
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
