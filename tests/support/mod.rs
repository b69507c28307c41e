//! Shared by the integration tests: the repository root and the `jsonschema` oracle.

#![allow(dead_code)]

use std::path::PathBuf;

use toolseal_runtime::json::Json;
use toolseal_runtime::schema::closed_world;

/// The repository root.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A `jsonschema` validator (formats asserted) for `schema`.
pub(crate) fn validator(schema: &serde_json::Value) -> jsonschema::Validator {
    jsonschema::options().should_validate_formats(true).build(schema).unwrap_or_else(|e| panic!("oracle cannot build {schema}: {e}"))
}

/// The oracle for a tool's `inputSchema`: the schema with the closed-world rule written out.
pub(crate) fn oracle(input_schema: &Json<'static>) -> jsonschema::Validator {
    validator(&closed_world(input_schema).to_value())
}

/// The `arguments` of a call object, parsed the way most hosts do (last duplicate wins).
pub(crate) fn arguments_of(call: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(call).expect("probe calls are JSON");
    v.get("arguments").cloned().unwrap_or_else(|| serde_json::json!({}))
}

/// `value` with every object's keys in sorted order, whether or not serde_json keeps
/// insertion order in this build (feature `preserve_order`, which cedar-policy-core turns on
/// for the root crate's tests, and which build scripts do not have).
pub(crate) fn sorted(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut members: Vec<(String, Value)> = map.into_iter().collect();
            members.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(members.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}
