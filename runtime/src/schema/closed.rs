//! The registry schema with toolseal's closed-world rules written out, so that
//! another validator (the `jsonschema` crate as a test oracle, or a model API
//! that takes a schema) enforces what toolseal enforces.

use std::borrow::Cow;

use super::compile::{ARRAY_WORDS, NUMBER_WORDS, OBJECT_WORDS, STRING_WORDS};
use crate::json::Json;

/// Returns `schema` (a tool's `inputSchema`) with:
/// - `additionalProperties: false` on the arguments object and on every object
///   schema that declares `properties` without `additionalProperties`
///   (`unevaluatedProperties: false` where the object is assembled by `allOf`);
/// - `type` written out where toolseal infers it from the keywords present.
pub fn closed_world(schema: &Json<'static>) -> Json<'static> {
    close(schema, Place::Root)
}

#[derive(Clone, Copy, PartialEq)]
enum Place {
    Root,
    AllOfMember,
    Nested,
}

fn close(v: &Json<'static>, place: Place) -> Json<'static> {
    let Json::Object(members) = v else { return v.clone() };
    let mut out: Vec<(Cow<'static, str>, Json<'static>)> = Vec::with_capacity(members.len() + 2);
    for (k, x) in members {
        let x = match k.as_ref() {
            "properties" | "$defs" | "definitions" => map_values(x, Place::Nested),
            "items" | "prefixItems" | "additionalItems" | "additionalProperties" | "anyOf" | "oneOf" => each(x, Place::Nested),
            "allOf" => each(x, Place::AllOfMember),
            _ => x.clone(),
        };
        out.push((k.clone(), x));
    }
    let has = |k: &str| members.iter().any(|(m, _)| m == k);
    let composite = ["$ref", "anyOf", "oneOf", "allOf", "enum", "const"].iter().any(|k| has(k));
    if !has("type") && !composite {
        let families = [(OBJECT_WORDS, "object"), (ARRAY_WORDS, "array"), (STRING_WORDS, "string"), (NUMBER_WORDS, "number")];
        let present: Vec<&str> = families.iter().filter(|(ws, _)| ws.iter().any(|w| has(w))).map(|(_, t)| *t).collect();
        match (present.as_slice(), place) {
            ([one], _) => out.push(("type".into(), Json::String((*one).into()))),
            ([], Place::Root) => out.push(("type".into(), Json::String("object".into()))),
            _ => {}
        }
    }
    let closes = place == Place::Root || has("properties");
    if closes && !has("additionalProperties") && place != Place::AllOfMember {
        let word = if has("allOf") { "unevaluatedProperties" } else { "additionalProperties" };
        out.push((word.into(), Json::Bool(false)));
    }
    Json::Object(out)
}

fn each(v: &Json<'static>, place: Place) -> Json<'static> {
    match v {
        Json::Array(items) => Json::Array(items.iter().map(|x| close(x, place)).collect()),
        other => close(other, place),
    }
}

fn map_values(v: &Json<'static>, place: Place) -> Json<'static> {
    match v {
        Json::Object(m) => Json::Object(m.iter().map(|(k, x)| (k.clone(), close(x, place))).collect()),
        other => other.clone(),
    }
}
