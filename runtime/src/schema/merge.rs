//! `allOf`: the members are merged into one schema, so that generated types
//! carry every member's constraints.

use super::error::{SchemaError, err};
use super::validate;
use super::{Additional, ArrayRule, Def, Items, Node, ObjectRule, Property, Schema, SchemaDoc, StringRule, contains_ref, int_repr};
use crate::check::NumberBounds;

type Value = crate::json::Json<'static>;

/// The schema allowing exactly what both `a` and `b` allow.
pub(super) fn merge(defs: &[Def], a: Schema, b: Schema, ptr: &str) -> Result<Schema, SchemaError> {
    let a = resolve(defs, a);
    let b = resolve(defs, b);
    let node = match (a.node, b.node) {
        (Node::Any, n) | (n, Node::Any) => n,
        (Node::IfType(x), Node::IfType(y)) if node_name(&x.node) == node_name(&y.node) => Node::IfType(Box::new(merge(defs, *x, *y, ptr)?)),
        // The other part has that type, so the conditional keywords apply to every value.
        (Node::IfType(x), other) if conditional_fits(&x, &other) => merge(defs, *x, Schema::bare(other, ptr), ptr)?.node,
        (other, Node::IfType(x)) if conditional_fits(&x, &other) => merge(defs, Schema::bare(other, ptr), *x, ptr)?.node,
        (Node::Null, Node::Null) => Node::Null,
        (Node::Boolean, Node::Boolean) => Node::Boolean,
        (Node::Integer { bounds: x, .. }, Node::Integer { bounds: y, .. }) | (Node::Integer { bounds: x, .. }, Node::Number(y)) | (Node::Number(x), Node::Integer { bounds: y, .. }) => {
            let bounds = bounds(x, y, ptr)?;
            Node::Integer { repr: int_repr(&bounds), bounds }
        }
        (Node::Number(x), Node::Number(y)) => Node::Number(bounds(x, y, ptr)?),
        (Node::String(x), Node::String(y)) => Node::String(strings(x, y, ptr)?),
        (Node::Array(x), Node::Array(y)) => Node::Array(arrays(defs, x, y, ptr)?),
        (Node::Object(x), Node::Object(y)) => Node::Object(objects(defs, x, y, ptr)?),
        (Node::Nullable(x), Node::Nullable(y)) => Node::Nullable(Box::new(merge(defs, *x, *y, ptr)?)),
        (Node::Nullable(x), other) | (other, Node::Nullable(x)) => merge(defs, *x, Schema::bare(other, ptr), ptr)?.node,
        (Node::Enum(values), other) | (other, Node::Enum(values)) => Node::Enum(filter(defs, values, other, ptr)?),
        (Node::Const(value), other) | (other, Node::Const(value)) => {
            let mut kept = filter(defs, vec![value], other, ptr)?;
            Node::Const(kept.remove(0))
        }
        (Node::Union { .. }, _) | (_, Node::Union { .. }) => {
            return err(ptr, "allOf", "`allOf` with an `anyOf`/`oneOf` member is not supported; distribute the members into the options");
        }
        (x, y) => return err(ptr, "allOf", format!("`allOf` members have disjoint types ({} and {}), so no value could be valid", node_name(&x), node_name(&y))),
    };
    Ok(Schema { node, title: a.title.or(b.title), description: a.description.or(b.description), default: a.default.or(b.default), pointer: ptr.to_owned() })
}

/// Whether every value `other` admits has the type a conditional part's keywords belong to.
fn conditional_fits(conditional: &Schema, other: &Node) -> bool {
    let (want, have) = (node_name(&conditional.node), node_name(other));
    want == have || (want == "number" && have == "integer")
}

fn resolve(defs: &[Def], mut s: Schema) -> Schema {
    for _ in 0..=defs.len() {
        match s.node {
            Node::Ref(i) => {
                let target = defs[i].schema.clone();
                s = Schema { title: s.title.or(target.title.clone()), description: s.description.or(target.description.clone()), ..target };
            }
            _ => break,
        }
    }
    s
}

fn node_name(n: &Node) -> &'static str {
    match n {
        Node::Null => "null",
        Node::Boolean => "boolean",
        Node::Integer { .. } => "integer",
        Node::Number(_) => "number",
        Node::String(_) => "string",
        Node::Array(_) => "array",
        Node::Object(_) => "object",
        _ => "another kind",
    }
}

fn filter(defs: &[Def], values: Vec<Value>, other: Node, ptr: &str) -> Result<Vec<Value>, SchemaError> {
    let doc = SchemaDoc { root: Schema::bare(other, ptr), defs: defs.to_vec(), notes: Vec::new() };
    if contains_ref(&doc.root) && doc.defs.is_empty() {
        return err(ptr, "allOf", "`enum`/`const` merged with a `$ref` is not supported");
    }
    let kept: Vec<_> = values.into_iter().filter(|v| validate::validate(&doc, &doc.root, v).is_ok()).collect();
    if kept.is_empty() {
        return err(ptr, "allOf", "no `enum`/`const` value satisfies the other `allOf` members");
    }
    Ok(kept)
}

fn tighter(x: Option<f64>, y: Option<f64>, pick: fn(f64, f64) -> f64) -> Option<f64> {
    match (x, y) {
        (Some(a), Some(b)) => Some(pick(a, b)),
        (a, b) => a.or(b),
    }
}

fn bounds(x: NumberBounds, y: NumberBounds, ptr: &str) -> Result<NumberBounds, SchemaError> {
    let multiple_of = match (x.multiple_of, y.multiple_of) {
        (Some(a), Some(b)) if crate::check::is_multiple(a, b) => Some(a),
        (Some(a), Some(b)) if crate::check::is_multiple(b, a) => Some(b),
        (Some(_), Some(_)) => return err(ptr, "multipleOf", "`allOf` members with unrelated `multipleOf` values are not supported"),
        (a, b) => a.or(b),
    };
    Ok(NumberBounds {
        minimum: tighter(x.minimum, y.minimum, f64::max),
        maximum: tighter(x.maximum, y.maximum, f64::min),
        exclusive_minimum: tighter(x.exclusive_minimum, y.exclusive_minimum, f64::max),
        exclusive_maximum: tighter(x.exclusive_maximum, y.exclusive_maximum, f64::min),
        multiple_of,
    })
}

fn min_count(x: Option<u64>, y: Option<u64>) -> Option<u64> {
    x.max(y)
}

fn max_count(x: Option<u64>, y: Option<u64>) -> Option<u64> {
    match (x, y) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn strings(x: StringRule, y: StringRule, ptr: &str) -> Result<StringRule, SchemaError> {
    let format = match (x.format, y.format) {
        (Some(a), Some(b)) if a != b => return err(ptr, "format", "`allOf` members with different formats are not supported"),
        (a, b) => a.or(b),
    };
    let mut patterns = x.patterns;
    patterns.extend(y.patterns);
    Ok(StringRule { min_length: min_count(x.min_length, y.min_length), max_length: max_count(x.max_length, y.max_length), patterns, format })
}

fn arrays(defs: &[Def], x: ArrayRule, y: ArrayRule, ptr: &str) -> Result<ArrayRule, SchemaError> {
    if !x.prefix.is_empty() && !y.prefix.is_empty() {
        return err(ptr, "prefixItems", "`allOf` members that both have `prefixItems` are not supported");
    }
    // `items` of a part without a prefix applies to every element, the other part's prefix included.
    let all_items = |a: &ArrayRule| a.prefix.is_empty() && !matches!(a.items, Items::Any);
    if (!x.prefix.is_empty() && all_items(&y)) || (!y.prefix.is_empty() && all_items(&x)) {
        return err(ptr, "items", "`items` of one `allOf` part beside `prefixItems` of another applies to every element");
    }
    let items = match (x.items, y.items) {
        (Items::None, _) | (_, Items::None) => Items::None,
        (Items::Any, i) | (i, Items::Any) => i,
        (Items::Schema(a), Items::Schema(b)) => Items::Schema(Box::new(merge(defs, *a, *b, ptr)?)),
    };
    let prefix = if x.prefix.is_empty() { y.prefix } else { x.prefix };
    Ok(ArrayRule { prefix, items, min_items: min_count(x.min_items, y.min_items), max_items: max_count(x.max_items, y.max_items), unique: x.unique || y.unique })
}

fn objects(defs: &[Def], x: ObjectRule, y: ObjectRule, ptr: &str) -> Result<ObjectRule, SchemaError> {
    // An explicit `additionalProperties` (other than `true`) also applies to the keys
    // only the other part declares, which one merged object cannot say.
    let constrains_others =
        |a: &ObjectRule, b: &ObjectRule| a.explicit_additional && !matches!(a.additional, Additional::Any) && b.properties.iter().any(|p| !a.properties.iter().any(|q| q.name == p.name));
    if constrains_others(&x, &y) || constrains_others(&y, &x) {
        return err(ptr, "additionalProperties", "`additionalProperties` of one `allOf` part applies to the keys another part declares");
    }
    let mut properties: Vec<Property> = x.properties;
    for p in y.properties {
        match properties.iter().position(|q| q.name == p.name) {
            Some(i) => {
                let q = properties.remove(i);
                let schema = merge(defs, q.schema, p.schema, ptr)?;
                properties.insert(i, Property { name: p.name, schema, required: q.required || p.required });
            }
            None => properties.push(p),
        }
    }
    // An explicit `additionalProperties` wins over the closed-world default.
    let additional = match (x.explicit_additional, y.explicit_additional) {
        (true, true) => match (x.additional, y.additional) {
            (Additional::Closed, _) | (_, Additional::Closed) => Additional::Closed,
            (Additional::Any, a) | (a, Additional::Any) => a,
            (Additional::Schema(a), Additional::Schema(b)) => Additional::Schema(Box::new(merge(defs, *a, *b, ptr)?)),
        },
        (true, false) => x.additional,
        (false, true) => y.additional,
        (false, false) if properties.is_empty() => Additional::Any,
        (false, false) => Additional::Closed,
    };
    let mut required_extra = x.required_extra;
    for r in y.required_extra {
        if let Some(p) = properties.iter_mut().find(|p| p.name == r) {
            p.required = true;
        } else if !required_extra.contains(&r) {
            required_extra.push(r);
        }
    }
    required_extra.retain(|r| match properties.iter_mut().find(|p| p.name == *r) {
        Some(p) => {
            p.required = true;
            false
        }
        None => true,
    });
    if !required_extra.is_empty() && matches!(additional, Additional::Closed) {
        return err(ptr, "required", format!("{:?} is required but no `allOf` member declares it", required_extra[0]));
    }
    Ok(ObjectRule {
        properties,
        additional,
        required_extra,
        min_properties: min_count(x.min_properties, y.min_properties),
        max_properties: max_count(x.max_properties, y.max_properties),
        explicit_additional: x.explicit_additional || y.explicit_additional,
    })
}
