//! The type model between a tool's JSON Schema and Cedar: which arguments a
//! policy can read, with which Cedar type, and which it cannot (and why). A
//! type is given only where it is exact — every value the schema accepts is a
//! value of that Cedar type and means the same thing — never an approximation.

use serde_json::{Map, Value};

/// The Cedar type of an argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// `String`: JSON Schema `type: "string"` (or an `enum`/`const` of strings).
    String,
    /// `Long`: `type: "integer"`; a value beyond 64 bits is refused by the gate, not rounded.
    Long,
    /// `Bool`: `type: "boolean"`.
    Bool,
    /// `ipaddr`: `type: "string"` with `format: "ipv4"` or `"ipv6"` (resolution asserts the
    /// format, so every value is an address `ip()` reads exactly).
    IpAddr,
    /// `datetime`: `type: "string"` with `format: "date"` or `"date-time"` (RFC 3339); a value
    /// Cedar's `datetime` cannot hold exactly (a fraction below a millisecond, a leap second)
    /// is refused by the gate, not rounded.
    Datetime,
    /// `Set<T>`: `type: "array"` whose `items` has a type (order and repeats are not kept).
    Set(Box<Shape>),
    /// A record: `type: "object"` with `properties`.
    Record(Vec<Attribute>),
}

/// One property of an object schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute {
    /// Its key.
    pub name: String,
    /// Whether the schema lists it in `required`.
    pub required: bool,
    /// Its type, or why it has none a policy could use.
    pub shape: Result<Shape, String>,
}

/// The Cedar type of the values `schema` accepts, or why there is no exact one.
pub fn shape_of(schema: &Value) -> Result<Shape, String> {
    let Value::Object(schema) = schema else {
        return Err("a boolean schema: no single type".to_owned());
    };
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) if kinds.len() == 1 => kinds[0].as_str().unwrap_or_default(),
        Some(Value::Array(kinds)) => {
            let kinds: Vec<&str> = kinds.iter().filter_map(Value::as_str).collect();
            return Err(format!("one of several types ({}): Cedar has no union type", kinds.join(", ")));
        }
        _ => return literal_shape(schema),
    };
    match kind {
        "string" => Ok(match schema.get("format").and_then(Value::as_str) {
            Some("ipv4" | "ipv6") => Shape::IpAddr,
            Some("date" | "date-time") => Shape::Datetime,
            _ => Shape::String,
        }),
        "integer" => Ok(Shape::Long),
        "boolean" => Ok(Shape::Bool),
        "number" => Err("a number: floats have no exact Cedar type".to_owned()),
        "null" => Err("always null: Cedar has no null".to_owned()),
        "array" => match schema.get("items") {
            _ if schema.contains_key("prefixItems") => Err("an array with `prefixItems` (a tuple): Cedar sets have one element type".to_owned()),
            Some(items @ Value::Object(_)) => shape_of(items).map(|item| Shape::Set(Box::new(item))).map_err(|why| format!("an array of items that are {why}")),
            _ => Err("an array without `items`: its elements have no single type".to_owned()),
        },
        "object" => Ok(Shape::Record(record(schema))),
        other => Err(format!("type {other:?} is not a JSON Schema type")),
    }
}

/// A schema without `type`: an `enum` or `const` whose values are all of one kind.
fn literal_shape(schema: &Map<String, Value>) -> Result<Shape, String> {
    let values: Vec<&Value> = match (schema.get("enum"), schema.get("const")) {
        (Some(Value::Array(values)), _) => values.iter().collect(),
        (None, Some(value)) => vec![value],
        _ if schema.contains_key("$ref") => return Err("a `$ref`: policies see arguments whose schema states their type".to_owned()),
        _ if schema.contains_key("anyOf") || schema.contains_key("oneOf") => {
            return Err(format!("an `{}` of schemas: Cedar has no union type", if schema.contains_key("anyOf") { "anyOf" } else { "oneOf" }));
        }
        _ => return Err("no `type`: its values have no single type".to_owned()),
    };
    if !values.is_empty() && values.iter().all(|v| v.is_string()) {
        Ok(Shape::String)
    } else if !values.is_empty() && values.iter().all(|v| v.as_i64().is_some()) {
        Ok(Shape::Long)
    } else if !values.is_empty() && values.iter().all(|v| v.is_boolean()) {
        Ok(Shape::Bool)
    } else {
        Err("an `enum` or `const` of mixed or unsupported values".to_owned())
    }
}

/// The attributes of an object schema's `properties`, in their order.
pub fn record(schema: &Map<String, Value>) -> Vec<Attribute> {
    let required: Vec<&str> = schema.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let Some(Value::Object(properties)) = schema.get("properties") else { return Vec::new() };
    properties.iter().map(|(name, property)| Attribute { name: name.clone(), required: required.contains(&name.as_str()), shape: shape_of(property) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn exact_types_only() {
        assert_eq!(shape_of(&json!({"type": "string", "maxLength": 3})), Ok(Shape::String));
        assert_eq!(shape_of(&json!({"type": "string", "format": "email"})), Ok(Shape::String));
        assert_eq!(shape_of(&json!({"type": "string", "format": "ipv6"})), Ok(Shape::IpAddr));
        assert_eq!(shape_of(&json!({"type": "string", "format": "date-time"})), Ok(Shape::Datetime));
        assert_eq!(shape_of(&json!({"type": ["integer"]})), Ok(Shape::Long));
        assert_eq!(shape_of(&json!({"enum": ["a", "b"]})), Ok(Shape::String));
        assert_eq!(shape_of(&json!({"type": "array", "items": {"type": "boolean"}})), Ok(Shape::Set(Box::new(Shape::Bool))));
        for refused in [
            json!({"type": "number"}),
            json!({"type": ["string", "null"]}),
            json!({}),
            json!(true),
            json!({"type": "array"}),
            json!({"$ref": "#/$defs/x"}),
            json!({"enum": [1, "a"]}),
            json!({"type": "array", "items": {"type": "number"}}),
        ] {
            assert!(shape_of(&refused).is_err(), "{refused}");
        }
        let Ok(Shape::Record(attributes)) = shape_of(&json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}, "required": ["a"]})) else { panic!() };
        assert_eq!(attributes.len(), 2);
        assert!(attributes[0].required && attributes[0].shape.is_ok());
        assert!(!attributes[1].required && attributes[1].shape.is_err());
    }
}
