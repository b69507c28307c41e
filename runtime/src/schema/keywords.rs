//! The keyword vocabulary, in one place: every JSON Schema keyword toolseal knows,
//! what it does to a value ([`Role`]) and the type it implies on its own. The typed
//! compiler (`compile.rs`) and the closed-world rewrite (`closed.rs`) read this list,
//! and a keyword whose violation a [`Rejection`](crate::Rejection) reports takes its
//! name from that [`Keyword`]: no keyword is spelled, or given a role, twice.
//!
//! **Adding a keyword** (each step is a place a reviewer checks):
//! 1. here: its [`VOCABULARY`] entry (role, implied type) and, when a violation is
//!    reported under its own name, a [`Keyword`] variant (the entry takes its name
//!    from [`Keyword::as_str`]);
//! 2. compile: `schema/compile.rs` into the typed IR ([`Node`](super::Node)) for a
//!    [`Role::Typed`] keyword, or `schema/spec/build.rs` for a [`Role::SpecOnly`] one;
//!    `schema/merge.rs` when `allOf` members can carry it, `schema/closed.rs` when it
//!    declares keys or applies a subschema in place;
//! 3. check: `runtime/src/check.rs` (shared by generated code and the interpreter),
//!    `schema/validate.rs` (the interpreter), `schema/spec/eval.rs` (the specification
//!    validator);
//! 4. codegen: `build-support/src/codegen/model.rs` for a typed keyword (the kind or
//!    table it becomes), its emitter in `codegen/` (`tables.rs` for a value keyword,
//!    checked and described by `runtime/src/generated.rs`), then
//!    `UPDATE_EXPECT=1 cargo test --test snapshots`;
//! 5. probe: `runtime/src/probe.rs`, an honest value and an H3 mutation that breaks it;
//! 6. docs and fixtures: the README's keyword table, `tests/registries/keywords.json`
//!    or `spec.json`, and `tests/spec_keywords.rs`.

use crate::rejection::Keyword;

/// What a keyword does to the values a schema admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Kept for docs or ignored, never enforced (`title`, `default`, `$defs`, ...).
    Annotation,
    /// Enforced, and expressed by a generated Rust type.
    Typed,
    /// Enforced by the specification validator ([`super::spec`]) only: no generated
    /// Rust type expresses it, so a schema using it is checked by that validator.
    SpecOnly,
}

/// One keyword of the vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeywordSpec {
    /// The keyword as JSON Schema spells it.
    pub name: &'static str,
    /// What it does.
    pub role: Role,
    /// The instance type it implies in a schema without `type` (`minLength` → `"string"`),
    /// for the typed keywords that constrain one type only.
    pub implies: Option<&'static str>,
}

const fn reported(keyword: Keyword, role: Role, implies: Option<&'static str>) -> KeywordSpec {
    KeywordSpec { name: keyword.as_str(), role, implies }
}

const fn word(name: &'static str, role: Role, implies: Option<&'static str>) -> KeywordSpec {
    KeywordSpec { name, role, implies }
}

const OBJECT: Option<&str> = Some("object");
const ARRAY: Option<&str> = Some("array");
const STRING: Option<&str> = Some("string");
const NUMBER: Option<&str> = Some("number");

/// Every keyword toolseal knows (JSON Schema 2020-12, 2019-09 and the draft-07/-04
/// forms real servers emit). A keyword not listed is an unknown annotation: it
/// constrains nothing and `lint` notes it.
pub const VOCABULARY: &[KeywordSpec] = &[
    // Annotations.
    word("$schema", Role::Annotation, None),
    word("$comment", Role::Annotation, None),
    word("title", Role::Annotation, None),
    word("description", Role::Annotation, None),
    word("default", Role::Annotation, None),
    word("examples", Role::Annotation, None),
    word("deprecated", Role::Annotation, None),
    word("readOnly", Role::Annotation, None),
    word("writeOnly", Role::Annotation, None),
    word("contentMediaType", Role::Annotation, None),
    word("contentEncoding", Role::Annotation, None),
    word("contentSchema", Role::Annotation, None),
    word("$defs", Role::Annotation, None),
    word("definitions", Role::Annotation, None),
    word("$vocabulary", Role::Annotation, None),
    // Typed: any instance type.
    reported(Keyword::Type, Role::Typed, None),
    reported(Keyword::Enum, Role::Typed, None),
    reported(Keyword::Const, Role::Typed, None),
    reported(Keyword::AnyOf, Role::Typed, None),
    reported(Keyword::OneOf, Role::Typed, None),
    word("allOf", Role::Typed, None),
    reported(Keyword::Ref, Role::Typed, None),
    // Typed: objects (a key problem is H2, reported by its reason, not a keyword).
    word("properties", Role::Typed, OBJECT),
    word("required", Role::Typed, OBJECT),
    word("additionalProperties", Role::Typed, OBJECT),
    reported(Keyword::MinProperties, Role::Typed, OBJECT),
    reported(Keyword::MaxProperties, Role::Typed, OBJECT),
    // Typed: arrays.
    word("items", Role::Typed, ARRAY),
    word("prefixItems", Role::Typed, ARRAY),
    word("additionalItems", Role::Typed, ARRAY),
    reported(Keyword::MinItems, Role::Typed, ARRAY),
    reported(Keyword::MaxItems, Role::Typed, ARRAY),
    reported(Keyword::UniqueItems, Role::Typed, ARRAY),
    // Typed: strings.
    reported(Keyword::MinLength, Role::Typed, STRING),
    reported(Keyword::MaxLength, Role::Typed, STRING),
    reported(Keyword::Pattern, Role::Typed, STRING),
    reported(Keyword::Format, Role::Typed, STRING),
    // Typed: numbers.
    reported(Keyword::Minimum, Role::Typed, NUMBER),
    reported(Keyword::Maximum, Role::Typed, NUMBER),
    reported(Keyword::ExclusiveMinimum, Role::Typed, NUMBER),
    reported(Keyword::ExclusiveMaximum, Role::Typed, NUMBER),
    reported(Keyword::MultipleOf, Role::Typed, NUMBER),
    // The specification validator's.
    reported(Keyword::Not, Role::SpecOnly, None),
    word("if", Role::SpecOnly, None),
    word("then", Role::SpecOnly, None),
    word("else", Role::SpecOnly, None),
    word("patternProperties", Role::SpecOnly, None),
    word("propertyNames", Role::SpecOnly, None),
    word("dependentRequired", Role::SpecOnly, None),
    word("dependentSchemas", Role::SpecOnly, None),
    word("dependencies", Role::SpecOnly, None),
    reported(Keyword::Contains, Role::SpecOnly, None),
    reported(Keyword::MinContains, Role::SpecOnly, None),
    reported(Keyword::MaxContains, Role::SpecOnly, None),
    word("unevaluatedProperties", Role::SpecOnly, None),
    reported(Keyword::UnevaluatedItems, Role::SpecOnly, None),
    word("$dynamicRef", Role::SpecOnly, None),
    word("$dynamicAnchor", Role::SpecOnly, None),
    word("$anchor", Role::SpecOnly, None),
    word("$id", Role::SpecOnly, None),
];

/// The instance types keywords can imply, in the order the compiler considers them.
pub const IMPLIED_TYPES: [&str; 4] = ["object", "array", "string", "number"];

/// The role of the keyword `name`; `None` for a keyword toolseal does not know.
pub fn role(name: &str) -> Option<Role> {
    VOCABULARY.iter().find(|k| k.name == name).map(|k| k.role)
}

/// The instance type `name` implies on its own (`minLength` → `"string"`), if any.
pub fn implied_type(name: &str) -> Option<&'static str> {
    VOCABULARY.iter().find(|k| k.name == name).and_then(|k| k.implies)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant, by an exhaustive match: a new one fails to compile here until listed.
    fn every_keyword() -> Vec<Keyword> {
        let all = [
            Keyword::Type,
            Keyword::Enum,
            Keyword::Const,
            Keyword::Minimum,
            Keyword::Maximum,
            Keyword::ExclusiveMinimum,
            Keyword::ExclusiveMaximum,
            Keyword::MultipleOf,
            Keyword::MinLength,
            Keyword::MaxLength,
            Keyword::Pattern,
            Keyword::Format,
            Keyword::MinItems,
            Keyword::MaxItems,
            Keyword::UniqueItems,
            Keyword::MinProperties,
            Keyword::MaxProperties,
            Keyword::AnyOf,
            Keyword::OneOf,
            Keyword::False,
            Keyword::Not,
            Keyword::Contains,
            Keyword::MinContains,
            Keyword::MaxContains,
            Keyword::UnevaluatedItems,
            Keyword::Ref,
        ];
        for k in all {
            match k {
                Keyword::Type
                | Keyword::Enum
                | Keyword::Const
                | Keyword::Minimum
                | Keyword::Maximum
                | Keyword::ExclusiveMinimum
                | Keyword::ExclusiveMaximum
                | Keyword::MultipleOf
                | Keyword::MinLength
                | Keyword::MaxLength
                | Keyword::Pattern
                | Keyword::Format
                | Keyword::MinItems
                | Keyword::MaxItems
                | Keyword::UniqueItems
                | Keyword::MinProperties
                | Keyword::MaxProperties
                | Keyword::AnyOf
                | Keyword::OneOf
                | Keyword::False
                | Keyword::Not
                | Keyword::Contains
                | Keyword::MinContains
                | Keyword::MaxContains
                | Keyword::UnevaluatedItems
                | Keyword::Ref => {}
            }
        }
        all.to_vec()
    }

    #[test]
    fn every_reported_keyword_is_in_the_vocabulary_once() {
        for k in every_keyword().into_iter().filter(|k| *k != Keyword::False) {
            assert_eq!(VOCABULARY.iter().filter(|s| s.name == k.as_str()).count(), 1, "{k:?}");
        }
        assert_eq!(role("false"), None, "`false` is a schema, not a keyword");
        let mut names: Vec<&str> = VOCABULARY.iter().map(|k| k.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), VOCABULARY.len(), "a keyword listed twice");
    }

    #[test]
    fn only_typed_keywords_imply_a_type() {
        for k in VOCABULARY {
            if let Some(t) = k.implies {
                assert_eq!(k.role, Role::Typed, "{}", k.name);
                assert!(IMPLIED_TYPES.contains(&t), "{}", k.name);
            }
        }
        assert_eq!((implied_type("minLength"), implied_type("maxContains"), implied_type("enum")), (Some("string"), None, None));
        assert_eq!((role("if"), role("title"), role("x-vendor")), (Some(Role::SpecOnly), Some(Role::Annotation), None));
    }
}
