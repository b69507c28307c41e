//! Where a schema sits, and the rule for the type of a schema without `type`: one
//! home for the compiler (`compile`) and the closed-world writer ([`super::closed_world`]),
//! so that both read a schema the same way.

use super::keywords::{IMPLIED_TYPES, implied_type};

/// Where a schema sits, for the closed-world rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// The tool's arguments object: closed even without `properties`, an object without `type`.
    Root,
    /// Applied in place to the object around it: a member of `allOf` (and, where the
    /// closed world is written out, of `if` / `then` / `else`, `not`, `dependentSchemas`,
    /// or an `anyOf` / `oneOf` option beside declared keys). Not closed itself:
    /// `additionalProperties: false` here would also reject keys its siblings declare.
    Applicator,
    /// A property of an `allOf` member: keywords of one type without `type` stay
    /// conditional (`Node::IfType`) until the members are merged.
    MemberProperty,
    /// Anywhere else.
    Nested,
}

/// The instance types that the keywords `keys` imply on their own (`minLength` → string),
/// in [`IMPLIED_TYPES`] order.
pub(crate) fn implied_types<'k>(keys: impl Iterator<Item = &'k str> + Clone) -> Vec<&'static str> {
    IMPLIED_TYPES.into_iter().filter(|t| keys.clone().any(|k| implied_type(k) == Some(*t))).collect()
}

/// The one type a schema without `type` admits, when the rule fixes one: the type its
/// keywords imply (`implied`) when they imply exactly one and `implied_types` is on,
/// else `object` at the root (tool arguments are an object); otherwise none, and
/// values of every type pass.
pub(crate) fn inferred_type(implied: &[&'static str], place: Place, implied_types: bool) -> Option<&'static str> {
    match (implied, place) {
        ([one], _) if implied_types => Some(one),
        (_, Place::Root) => Some("object"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_an_object_unless_one_implied_type_is_asked_for() {
        let string = implied_types(["minLength", "title"].into_iter());
        assert_eq!(string, ["string"]);
        assert_eq!(inferred_type(&string, Place::Root, false), Some("object"));
        assert_eq!(inferred_type(&string, Place::Nested, true), Some("string"));
        assert_eq!(inferred_type(&string, Place::Nested, false), None);
        let two = implied_types(["minLength", "minItems"].into_iter());
        assert_eq!((inferred_type(&two, Place::Applicator, true), inferred_type(&two, Place::Root, true)), (None, Some("object")));
    }
}
