//! Differential testing on random registries: random argument schemas within
//! the supported keyword set (nested objects, arrays, unions, enums, consts,
//! nullable types, ranges, lengths, patterns), random values near their
//! boundaries. The dynamic resolver and the `jsonschema` crate as oracle (with
//! the closed-world rule written out) must agree on accept/reject.
//! `PROPTEST_CASES` raises the count (CI runs the default 10,000).

mod support;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolseal::Options;
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::json::Json;
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::{CompileOptions, closed_world};

const KEYS: [&str; 4] = ["a", "b", "c", "d"];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        (prop::option::of(-3i64..3), prop::option::of(0i64..10), prop::option::of(prop_oneof![Just(2i64), Just(3)])).prop_map(|(min, max, mul)| {
            let mut s = json!({ "type": "integer" });
            if let Some(m) = min {
                s["minimum"] = json!(m);
            }
            if let Some(m) = max {
                s["maximum"] = json!(m);
            }
            if let Some(m) = mul {
                s["multipleOf"] = json!(m);
            }
            s
        }),
        (prop::option::of(prop_oneof![Just(0.0f64), Just(-1.5)]), prop::option::of(prop_oneof![Just(1.0f64), Just(100.0)])).prop_map(|(xmin, max)| {
            let mut s = json!({ "type": "number" });
            if let Some(m) = xmin {
                s["exclusiveMinimum"] = json!(m);
            }
            if let Some(m) = max {
                s["maximum"] = json!(m);
            }
            s
        }),
        (prop::option::of(0u64..3), prop::option::of(1u64..6), prop::option::of(prop_oneof![Just("^[a-z]+$"), Just("^acct-[0-9]{1,4}$"), Just("b")])).prop_map(|(min, max, pattern)| {
            let mut s = json!({ "type": "string" });
            if let Some(m) = min {
                s["minLength"] = json!(m);
            }
            if let Some(m) = max {
                s["maxLength"] = json!(m);
            }
            if let Some(p) = pattern {
                s["pattern"] = json!(p);
            }
            s
        }),
        Just(json!({ "type": "boolean" })),
        Just(json!({ "type": "null" })),
        Just(json!({ "enum": ["x", "y", 1, null] })),
        Just(json!({ "enum": ["red", "green"] })),
        Just(json!({ "const": 2 })),
        Just(json!({ "type": ["string", "null"], "maxLength": 3 })),
        Just(json!({})),
    ]
}

fn schema() -> impl Strategy<Value = Value> + Clone {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (inner.clone(), prop::option::of(0u64..2), prop::option::of(1u64..4), any::<bool>()).prop_map(|(items, min, max, unique)| {
                let mut s = json!({ "type": "array", "items": items });
                if let Some(m) = min {
                    s["minItems"] = json!(m);
                }
                if let Some(m) = max {
                    s["maxItems"] = json!(m);
                }
                if unique {
                    s["uniqueItems"] = json!(true);
                }
                s
            }),
            object(inner.clone()),
            prop::collection::vec(inner.clone(), 2..4).prop_map(|options| json!({ "anyOf": options })),
            prop::collection::vec(inner, 2..3).prop_map(|options| json!({ "oneOf": options })),
        ]
    })
}

fn object(inner: impl Strategy<Value = Value> + Clone) -> impl Strategy<Value = Value> {
    (prop::collection::vec(inner.clone(), 0..4), prop::collection::vec(any::<bool>(), 4), 0u8..3, inner).prop_map(|(props, required, extra, extra_schema)| {
        let mut properties = Map::new();
        let mut req = Vec::new();
        for (i, p) in props.into_iter().enumerate() {
            properties.insert(KEYS[i].to_owned(), p);
            if required[i] {
                req.push(json!(KEYS[i]));
            }
        }
        let mut s = json!({ "type": "object", "properties": properties, "required": req });
        s["additionalProperties"] = match extra {
            0 => json!(false),
            1 => json!(true),
            _ => extra_schema,
        };
        s
    })
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        prop_oneof![Just(-3i64), Just(-1), Just(0), Just(1), Just(2), Just(3), Just(4), Just(6), Just(9), Just(10), Just(11), Just(100), Just(9_007_199_254_740_993)].prop_map(Value::from),
        prop_oneof![Just(0.5f64), Just(-1.5), Just(1e-9), Just(2.0), Just(99.5), Just(100.5)].prop_map(Value::from),
        prop_oneof![Just(""), Just("b"), Just("abc"), Just("ABC"), Just("acct-12"), Just("acct-12345"), Just("x"), Just("red"), Just("5"), Just("é")].prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop_oneof![Just("a"), Just("b"), Just("c"), Just("d"), Just("z")], inner), 0..5)
                .prop_map(|members| Value::Object(members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

fn root_object() -> impl Strategy<Value = Value> {
    object(schema())
}

fn arguments() -> impl Strategy<Value = Value> {
    prop::collection::vec((prop_oneof![Just("a"), Just("b"), Just("c"), Just("d"), Just("z")], value()), 0..5)
        .prop_map(|members| Value::Object(members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_dynamic_resolver_agrees_with_the_jsonschema_oracle(schema in root_object(), args in prop::collection::vec(arguments(), 4)) {
        let registry = json!({ "tools": [{ "name": "t", "inputSchema": schema }] });
        let registry = read_registry(registry.to_string().as_bytes()).expect("a registry");
        let dynamic = DynamicRegistry::new(&registry, &CompileOptions::default());
        let oracle = jsonschema::options().build(&closed_world(&registry.tools[0].input_schema).to_value()).expect("the oracle compiles it");
        for a in &args {
            let tree = Json::from_value(a);
            let ours = dynamic.resolve_parts("t", Some(&tree), &mut Options::strict().cx());
            prop_assert_eq!(ours.is_ok(), oracle.is_valid(a), "schema {} arguments {} -> {:?}", schema, a, ours.err().map(|r| r.to_string()));
        }
    }
}

/// The generators make calls on both sides of the line: the agreement above is not vacuous.
#[test]
fn the_random_calls_are_both_accepted_and_rejected() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut accepted, mut rejected) = (0, 0);
    for _ in 0..2_000 {
        let schema = root_object().new_tree(&mut runner).expect("a schema").current();
        let args = arguments().new_tree(&mut runner).expect("arguments").current();
        let tree = Json::from_value(&schema).into_owned();
        let oracle = jsonschema::options().build(&closed_world(&tree).to_value()).expect("compiles");
        if oracle.is_valid(&args) { accepted += 1 } else { rejected += 1 }
    }
    println!("random calls: {accepted} accepted, {rejected} rejected by the oracle");
    assert!(accepted >= 200 && rejected >= 200, "{accepted} accepted, {rejected} rejected");
}

/// The corpus of random registries the generated enum is held to: built from
/// the same strategies with a fixed seed, committed under
/// `tests/registries/random/`, compiled by the fixtures crate and checked against
/// the oracle by `tests/differential.rs`. `UPDATE_RANDOM=1` rewrites it.
#[test]
fn the_random_registry_corpus_is_current() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let dir = support::root().join("tests/registries/random");
    for file in 0..3 {
        let tools: Vec<Value> = (0..15).map(|t| json!({ "name": format!("random_{file}_{t}"), "inputSchema": root_object().new_tree(&mut runner).expect("a schema").current() })).collect();
        let text = format!("{}\n", serde_json::to_string_pretty(&support::sorted(json!({ "tools": tools }))).expect("json"));
        let path = dir.join(format!("random-{file}.json"));
        if std::env::var_os("UPDATE_RANDOM").is_some() {
            std::fs::create_dir_all(&dir).expect("dir");
            std::fs::write(&path, &text).expect("write");
        }
        assert_eq!(std::fs::read_to_string(&path).ok().as_deref(), Some(text.as_str()), "{} is stale: UPDATE_RANDOM=1 cargo test --test random_differential", path.display());
    }
}
