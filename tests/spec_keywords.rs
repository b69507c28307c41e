//! The generated enum on keywords no Rust type expresses (checked by the
//! specification validator inside generated newtypes), on a quarantined tool,
//! and on the class order: each call agrees with the dynamic resolver, class and
//! pointer included.

use toolseal::{Class, Options};
use toolseal_fixtures::spec;
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::CompileOptions;

const REGISTRY: &str = include_str!("registries/spec.json");

/// `(call, expected class or None for accepted, expected pointer)`.
const CALLS: &[(&str, Option<Class>, &str)] = &[
    (r#"{"name":"apply_patch","arguments":{"file_hash":null,"patches":[{"content":"x"}]}}"#, Some(Class::H2), "/arguments/patches/0/content"),
    (r#"{"name":"apply_patch","arguments":{"file_hash":null,"patches":[{"contents":"x"}]}}"#, Some(Class::H3), "/arguments/file_hash"),
    (r#"{"name":"apply_patch","arguments":{"patches":[{"contents":"x","line":"7"},{"contents":"y","lines":1}]}}"#, Some(Class::H2), "/arguments/patches/1/lines"),
    (r#"{"name":"apply_patch","arguments":{"patches":[{"contents":"x","line":7}]}}"#, None, ""),
    (r#"{"name":"connect","arguments":{"host":"10.0.0.1"}}"#, None, ""),
    (r#"{"name":"connect","arguments":{"host":"::1","mode":"tcp","tags":["prod","x"],"env":{"PATH":"/bin"}}}"#, None, ""),
    (r#"{"name":"connect","arguments":{"host":"example.com"}}"#, Some(Class::H3), "/arguments/host"),
    (r#"{"name":"connect","arguments":{"host":"10.0.0.1","mode":"udp"}}"#, Some(Class::H2), "/arguments/port"),
    (r#"{"name":"connect","arguments":{"host":"10.0.0.1","mode":"udp","port":53}}"#, None, ""),
    (r#"{"name":"connect","arguments":{"host":"10.0.0.1","mode":"icmp"}}"#, Some(Class::H3), "/arguments/mode"),
    (r#"{"name":"connect","arguments":{"host":"10.0.0.1","verbose":true}}"#, Some(Class::H3), "/arguments/verbose"),
    (r#"{"name":"connect","arguments":{"host":"10.0.0.1","label":null}}"#, Some(Class::H3), "/arguments/label"),
    (r#"{"name":"connect","arguments":{"host":"10.0.0.1","tags":["prod","prod"]}}"#, Some(Class::H3), "/arguments/tags"),
    (r#"{"name":"connect","arguments":{"host":"10.0.0.1","env":{"path":"/bin"}}}"#, Some(Class::H2), "/arguments/env/path"),
    (r#"{"name":"connect","arguments":{"host":"10.0.0.1","env":{"A_VERY_LONG_VARIABLE":"1"}}}"#, Some(Class::H2), "/arguments/env/A_VERY_LONG_VARIABLE"),
    (r#"{"name":"connect","arguments":{"host":"10.0.0.1","hots":"x"}}"#, Some(Class::H2), "/arguments/hots"),
    (r#"{"name":"broken","arguments":{}}"#, Some(Class::Quarantined), "/name"),
];

#[test]
fn generated_and_dynamic_resolvers_agree_on_keywords_no_rust_type_expresses() {
    let dynamic = DynamicRegistry::new(&read_registry(REGISTRY.as_bytes()).expect("registry"), &CompileOptions::default());
    assert_eq!(dynamic.quarantined().map(|(t, _)| t).collect::<Vec<_>>(), ["broken"]);
    for (call, class, pointer) in CALLS {
        let generated = spec::ToolCall::from_json(call.as_bytes());
        let interpreted = dynamic.resolve(call.as_bytes(), &Options::strict());
        let verdict = |r: Option<&toolseal::Rejection>| r.map(|r| (r.class(), r.pointer().to_owned()));
        assert_eq!(verdict(generated.as_ref().err()), class.map(|c| (c, pointer.to_string())), "generated, {call}: {:?}", generated.as_ref().err().map(ToString::to_string));
        assert_eq!(verdict(interpreted.as_ref().err()), verdict(generated.as_ref().err()), "dynamic vs generated, {call}");
    }
}

#[test]
fn a_quarantined_tool_says_why_and_the_generated_values_keep_their_json() {
    let r = spec::ToolCall::from_json(br#"{"name":"broken","arguments":{}}"#).expect_err("quarantined");
    let text = r.to_string();
    assert!(text.contains("quarantined") && text.contains("neither embedded nor bundled"), "{text}");
    // `if`/`then` on the arguments object: the whole object is checked by the specification validator.
    let spec::ToolCall::Connect(args) = spec::ToolCall::from_json(br#"{"name":"connect","arguments":{"host":"::1","env":{"PATH":"/bin"}}}"#).expect("valid") else { panic!() };
    assert_eq!(args.get()["host"], serde_json::json!("::1"));
    assert_eq!(serde_json::to_value(&args).expect("serializes")["env"], serde_json::json!({"PATH": "/bin"}));
    // Typed where a type says it: `patches` is a vector of structs.
    let spec::ToolCall::ApplyPatch(patch) = spec::ToolCall::from_json(br#"{"name":"apply_patch","arguments":{"patches":[{"contents":"x","line":7}]}}"#).expect("valid") else { panic!() };
    assert_eq!(patch.patches[0].contents, "x");
}
