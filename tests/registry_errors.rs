//! What a registry says and toolseal cannot enforce at all quarantines that one
//! tool, naming the file, the tool, the JSON pointer (in the file) and the
//! keyword; `Config::strict(true)` makes it a build error. What no Rust type
//! expresses is enforced by the specification validator, never refused. Never a
//! panic, never a silently dropped constraint.

use std::path::Path;

use toolseal::{Class, Options};
use toolseal_build::{Config, Error, generate_source};
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::CompileOptions;

fn tool(schema: &str) -> String {
    format!(r#"{{"tools":[{{"name":"t","inputSchema":{schema}}},{{"name":"ok","inputSchema":{{"type":"object"}}}}]}}"#)
}

/// The one quarantined tool of `registry`: its pointer, keyword and message.
fn quarantined(registry: &str) -> (String, String, String) {
    let generated = generate_source(registry.as_bytes(), Path::new("registry/x.json"), "m", &CompileOptions::default()).unwrap_or_else(|e| panic!("{registry}: {e}"));
    let [q] = generated.quarantined.as_slice() else { panic!("{registry}: expected one quarantined tool, got {:?}", generated.quarantined) };
    let text = q.to_string();
    assert!(text.starts_with("registry/x.json: tool `t` is quarantined"), "{text}");
    (q.pointer.clone(), q.keyword.clone(), text)
}

/// The dynamic resolver's verdict on arguments `args` for tool `t` of `registry`.
fn resolve(registry: &str, args: &str) -> Result<(), (Class, String)> {
    let dynamic = DynamicRegistry::new(&read_registry(registry.as_bytes()).expect("registry"), &CompileOptions::default());
    let call = format!(r#"{{"name":"t","arguments":{args}}}"#);
    dynamic.resolve(call.as_bytes(), &Options::strict()).map(drop).map_err(|r| (r.class(), r.to_string()))
}

#[test]
fn schemas_that_cannot_be_enforced_quarantine_the_tool_naming_file_pointer_and_keyword() {
    let cases: &[(&str, &str, &str)] = &[
        (r#"{"type":"object","properties":{"a":{"type":"string","pattern":"(?=x)y"}}}"#, "/tools/0/inputSchema/properties/a", "pattern"),
        (r#"{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}"#, "/tools/0/inputSchema/properties/a", "$ref"),
        (r##"{"type":"object","properties":{"a":{"$ref":"#/$defs/Missing"}}}"##, "/tools/0/inputSchema/properties/a", "$ref"),
        (r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}"#, "/tools/0/inputSchema", "required"),
        (r#"{"type":"string"}"#, "/tools/0/inputSchema", "type"),
        (r#"{"type":"object","properties":{"a":{"type":"strng"}}}"#, "/tools/0/inputSchema/properties/a", "type"),
        (r#"{"type":"object","properties":{"a":{"type":"string","minLength":-1}}}"#, "/tools/0/inputSchema/properties/a", "minLength"),
        (r#"{"type":"object","properties":{"a":{"type":"number","multipleOf":0}}}"#, "/tools/0/inputSchema/properties/a", "multipleOf"),
        (r#"{"type":"object","properties":{"a":7}}"#, "/tools/0/inputSchema/properties/a", "type"),
        (r#"{"type":"object","properties":{"a":{"type":"boolean","enum":["True","False"]}},"required":["a"]}"#, "/tools/0/inputSchema/properties/a", "required"),
    ];
    for (schema, pointer, keyword) in cases {
        let registry = tool(schema);
        let (p, k, text) = quarantined(&registry);
        assert_eq!((p.as_str(), k.as_str()), (*pointer, *keyword), "{text}");
        // At run time the tool exists: its calls are refused with the reason, the other tool resolves.
        let (class, why) = resolve(&registry, "{}").expect_err(schema);
        assert_eq!(class, Class::Quarantined, "{why}");
        assert!(why.contains(keyword), "{why}");
        let dynamic = DynamicRegistry::new(&read_registry(registry.as_bytes()).expect("registry"), &CompileOptions::default());
        assert!(dynamic.resolve(br#"{"name":"ok","arguments":{}}"#, &Options::strict()).is_ok());
        // Strict: the whole registry is refused, with the same words.
        let strict = DynamicRegistry::strict(&read_registry(registry.as_bytes()).expect("registry"), &CompileOptions::default());
        assert_eq!(strict.err().map(|r| (r.tool, r.error.keyword)), Some(("t".to_owned(), keyword.to_string())));
    }
}

#[test]
fn strict_config_makes_quarantine_a_build_error() {
    let dir = std::env::temp_dir().join(format!("toolseal-strict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("r.json");
    std::fs::write(&path, tool(r#"{"type":"object","properties":{"a":{"type":"string","pattern":"(?=x)y"}}}"#)).expect("write");
    let generated = Config::new().registry(&path).generate().expect("quarantines by default");
    assert_eq!(generated[0].quarantined.len(), 1);
    assert!(generated[0].source.contains("is quarantined"), "the variant documents why");
    let e = Config::new().registry(&path).strict(true).generate().expect_err("strict");
    assert!(matches!(&e, Error::Schema { tool, keyword, .. } if tool == "t" && keyword == "pattern"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Each cause the registry issue lists, as real servers write it: enforced with the
/// specification's semantics, never refused, never weaker.
#[test]
fn schemas_no_rust_type_expresses_are_enforced_not_refused() {
    /// A schema and its calls, each with the class it must be rejected with (`None`: accepted).
    type Case<'a> = (&'a str, &'a [(&'a str, Option<Class>)]);
    let cases: &[Case] = &[
        // `not`
        (r#"{"type":"object","properties":{"a":{"not":{"type":"string"}}}}"#, &[(r#"{"a":1}"#, None), (r#"{"a":"x"}"#, Some(Class::H3))]),
        // `if` / `then` on the arguments object (keys declared in place count as declared)
        (
            r#"{"type":"object","properties":{"k":{"type":"string"},"n":{"type":"integer"}},"if":{"properties":{"k":{"const":"num"}}},"then":{"required":["n"]}}"#,
            &[(r#"{"k":"num","n":1}"#, None), (r#"{"k":"num"}"#, Some(Class::H2)), (r#"{"k":"str"}"#, None), (r#"{"k":"str","z":1}"#, Some(Class::H2))],
        ),
        // `patternProperties`: the keys it matches are declared
        (r#"{"type":"object","patternProperties":{"^x-":{"type":"string"}}}"#, &[(r#"{"x-a":"1"}"#, None), (r#"{"x-a":1}"#, Some(Class::H3)), (r#"{"y":"1"}"#, Some(Class::H2))]),
        // an unknown format is an annotation (lint notes it)
        (r#"{"type":"object","properties":{"a":{"type":"string","format":"color"}}}"#, &[(r#"{"a":"red"}"#, None), (r#"{"a":1}"#, Some(Class::H3))]),
        // keywords beside `$ref`
        (
            r##"{"type":"object","$defs":{"X":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/X","maxLength":3}}}"##,
            &[(r#"{"a":"abc"}"#, None), (r#"{"a":"abcd"}"#, Some(Class::H3)), (r#"{"a":1}"#, Some(Class::H3))],
        ),
        // `type` beside `anyOf` (how ip-address fields are written)
        (
            r#"{"type":"object","properties":{"ip":{"type":"string","anyOf":[{"format":"ipv4"},{"format":"ipv6"}]}}}"#,
            &[(r#"{"ip":"10.0.0.1"}"#, None), (r#"{"ip":"::1"}"#, None), (r#"{"ip":"host"}"#, Some(Class::H3)), (r#"{"ip":4}"#, Some(Class::H3))],
        ),
        // `{"not": {}}` inside `anyOf` (zod's undefined)
        (r#"{"type":"object","properties":{"a":{"anyOf":[{"not":{}},{"type":"string"}]}}}"#, &[(r#"{"a":"x"}"#, None), (r#"{"a":1}"#, Some(Class::H3))]),
        // an optional key that admits no value must be absent
        (r#"{"type":"object","properties":{"a":{"type":"boolean","enum":["True","False"]},"b":{"type":"string"}}}"#, &[(r#"{"b":"x"}"#, None), (r#"{"a":true}"#, Some(Class::H3))]),
        (r#"{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"type":"integer"}]}}}"#, &[(r#"{}"#, None), (r#"{"a":"x"}"#, Some(Class::H3))]),
        (r#"{"type":"object","properties":{"a":{"enum":[]}}}"#, &[(r#"{}"#, None), (r#"{"a":1}"#, Some(Class::H3))]),
        // no `type`: the specification's semantics (the implied-type rule is opt-in)
        (
            r#"{"type":"object","properties":{"a":{"minLength":2,"minimum":1}}}"#,
            &[(r#"{"a":"xy"}"#, None), (r#"{"a":5}"#, None), (r#"{"a":"x"}"#, Some(Class::H3)), (r#"{"a":0}"#, Some(Class::H3)), (r#"{"a":true}"#, None)],
        ),
        // a default that breaks its own schema is never applied (lint reports it)
        (r#"{"type":"object","properties":{"a":{"type":"integer","minimum":1,"default":0}}}"#, &[(r#"{}"#, None), (r#"{"a":0}"#, Some(Class::H3))]),
        // `"default": null` on a key that is not nullable (pydantic's `x: T = None`)
        (r#"{"type":"object","properties":{"a":{"type":"string","default":null}}}"#, &[(r#"{}"#, None), (r#"{"a":null}"#, Some(Class::H3))]),
        // a dialect's unknown keyword is an annotation
        (r#"{"type":"object","properties":{"a":{"type":"string","optional":true}}}"#, &[(r#"{}"#, None), (r#"{"a":1}"#, Some(Class::H3))]),
        // `false` in `anyOf`, and `dependentRequired`, `contains`, `propertyNames`
        (r#"{"type":"object","properties":{"a":{"anyOf":[false,{"type":"integer"}]}}}"#, &[(r#"{"a":1}"#, None), (r#"{"a":"1"}"#, Some(Class::H3))]),
        (r#"{"type":"object","properties":{"a":{},"b":{}},"dependentRequired":{"a":["b"]}}"#, &[(r#"{"a":1,"b":2}"#, None), (r#"{"a":1}"#, Some(Class::H2)), (r#"{"b":1}"#, None)]),
        (
            r#"{"type":"object","properties":{"a":{"type":"array","contains":{"const":1},"maxContains":1}}}"#,
            &[(r#"{"a":[1,2]}"#, None), (r#"{"a":[2]}"#, Some(Class::H3)), (r#"{"a":[1,1]}"#, Some(Class::H3))],
        ),
        (
            r#"{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"},"propertyNames":{"maxLength":2}}}}"#,
            &[(r#"{"m":{"ab":1}}"#, None), (r#"{"m":{"abc":1}}"#, Some(Class::H2))],
        ),
        // `allOf` merging was permissive: the parent's own `additionalProperties` / `items` apply
        // to what only a member declares (the keys and elements a member evaluates stay additional).
        (
            r#"{"type":"object","properties":{"v":{"allOf":[{"properties":{"foo":{}}}],"additionalProperties":{"type":"boolean"}}}}"#,
            &[(r#"{"v":{"foo":1,"bar":true}}"#, Some(Class::H3)), (r#"{"v":{"foo":true,"bar":true}}"#, None)],
        ),
        (r#"{"type":"object","properties":{"v":{"allOf":[{"prefixItems":[{"minimum":3}]}],"items":{"minimum":5}}}}"#, &[(r#"{"v":[3,5]}"#, Some(Class::H3)), (r#"{"v":[5,5]}"#, None)]),
    ];
    for (schema, calls) in cases {
        let registry = tool(schema);
        let generated = generate_source(registry.as_bytes(), Path::new("r.json"), "m", &CompileOptions::default()).unwrap_or_else(|e| panic!("{schema}: {e}"));
        assert!(generated.quarantined.is_empty(), "{schema}: {:?}", generated.quarantined);
        for (args, want) in *calls {
            let got = resolve(&registry, args);
            assert_eq!(got.as_ref().err().map(|(c, _)| *c), *want, "{schema} with {args}: {got:?}");
        }
    }
}

#[test]
fn every_vendor_format_points_into_its_own_layout() {
    let openai = r##"[{"type":"function","function":{"name":"t","parameters":{"type":"object","properties":{"a":{"$ref":"#/nowhere"}}}}}]"##;
    assert_eq!(quarantined_any(openai), "/0/function/parameters/properties/a");
    let bedrock = r#"{"toolConfig":{"tools":[{"toolSpec":{"name":"t","inputSchema":{"json":{"type":"object","oneOf":[]}}}}]}}"#;
    assert_eq!(quarantined_any(bedrock), "/toolConfig/tools/0/toolSpec/inputSchema/json");
    let anthropic = r#"[{"name":"t","input_schema":{"type":"object","properties":{"a":{"type":"string","pattern":"a(?!b)"}}}}]"#;
    assert_eq!(quarantined_any(anthropic), "/0/input_schema/properties/a");
}

fn quarantined_any(registry: &str) -> String {
    let generated = generate_source(registry.as_bytes(), Path::new("r.json"), "m", &CompileOptions::default()).unwrap_or_else(|e| panic!("{registry}: {e}"));
    generated.quarantined.first().unwrap_or_else(|| panic!("{registry}: nothing quarantined")).pointer.clone()
}

#[test]
fn malformed_registries_are_registry_errors() {
    let cases: &[(&str, &str)] = &[
        ("{", ""),
        ("42", ""),
        (r#"{"tool":[]}"#, ""),
        (r#"{"tools":[{"name":"a","inputSchema":{}},{"name":"a","inputSchema":{}}]}"#, "/tools/1"),
        (r#"{"tools":[{"name":"a","inputSchema":{"type":"object","type":"object"}}]}"#, "/tools/0/inputSchema/type"),
        (r#"{"tools":[{"name":"a"}]}"#, "/tools/0"),
        (r#"{"tools":[{"name":1,"inputSchema":{}}]}"#, "/tools/0/name"),
        (r#"[{"type":"web_search_20250305","name":"web_search"}]"#, "/0"),
        (r#"[{"type":"custom","function":{"name":"a"}}]"#, "/0/type"),
    ];
    for (registry, pointer) in cases {
        match generate_source(registry.as_bytes(), Path::new("r.json"), "m", &CompileOptions::default()) {
            Err(Error::Registry { source, .. }) => assert_eq!(source.pointer, *pointer, "{registry}: {source}"),
            other => panic!("{registry}: expected a registry error, got {other:?}"),
        }
    }
}

#[test]
fn format_assertion_can_be_turned_off() {
    let registry = tool(r#"{"type":"object","properties":{"a":{"type":"string","format":"color"}}}"#);
    let options = CompileOptions { assert_formats: false, ..CompileOptions::default() };
    assert!(generate_source(registry.as_bytes(), Path::new("r.json"), "m", &options).is_ok());
}

#[test]
fn config_errors_are_errors() {
    let e = Config::new().registry_as("a.json", "bad name").generate().unwrap_err();
    assert!(matches!(e, Error::Config(_)) && e.to_string().contains("bad name"), "{e}");
    let e = Config::new().registry_as("tests/registries/keywords.json", "m").registry_as("tests/registries/keywords.json", "m").generate().unwrap_err();
    assert!(matches!(e, Error::Config(_)) && e.to_string().contains("registry_as"), "two modules named m: {e}");
    let e = Config::new().registry("does/not/exist.json").generate().unwrap_err();
    assert!(matches!(e, Error::Io { .. }) && e.to_string().contains("does/not/exist.json"), "{e}");
}

/// Writes a manifest (and the registries it names) into a fresh directory.
fn manifest_dir(name: &str, manifest: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolseal-manifest-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let tool = |n: &str| format!(r#"{{"name":"{n}","inputSchema":{{"type":"object","properties":{{}}}}}}"#);
    std::fs::write(dir.join("a.json"), format!(r#"{{"tools":[{},{}]}}"#, tool("read"), tool("write"))).expect("write");
    std::fs::write(dir.join("b.json"), format!(r#"{{"tools":[{}]}}"#, tool("read"))).expect("write");
    std::fs::write(dir.join("toolseal.toml"), manifest).expect("write");
    dir
}

#[test]
fn manifest_errors_name_the_manifest_and_the_fault() {
    let two = "[[servers]]\nname = \"a\"\ntier = \"first\"\nregistry = \"a.json\"\n[[servers]]\nname = \"b\"\ntier = \"TIER\"\nregistry = \"b.json\"\n";
    let cases: [(&str, String, &str); 7] = [
        ("syntax", "tiers = [\"first\"\n".to_owned(), "toolseal.toml"),
        ("unknown-key", format!("tiers = [\"first\"]\npriority = 1\n{}", two.replace("TIER", "first")), "priority"),
        ("unknown-tier", format!("tiers = [\"first\"]\n{}", two.replace("TIER", "second")), "tier \"second\""),
        ("no-tiers", format!("tiers = []\n{}", two.replace("TIER", "first")), "no tier"),
        ("bad-pin", format!("tiers = [\"first\"]\n{}[pins]\nread = \"c\"\n", two.replace("TIER", "first")), "no such server"),
        ("shadowing", format!("tiers = [\"first\", \"second\"]\nshadowing = \"error\"\n{}", two.replace("TIER", "second")), "shadowed"),
        ("bad-server", format!("tiers = [\"first\"]\n{}", two.replace("TIER", "first").replace("name = \"b\"", "name = \"b_c\"")), "server name"),
    ];
    for (name, manifest, expected) in cases {
        let dir = manifest_dir(name, &manifest);
        let e = Config::new().manifest(dir.join("toolseal.toml")).generate().expect_err(name);
        assert!(matches!(e, Error::Manifest { .. }), "{name}: {e}");
        let text = e.to_string();
        assert!(text.contains("toolseal.toml") && text.contains(expected), "{name}: {text}");
        std::fs::remove_dir_all(&dir).ok();
    }
    // Shadowing is a warning by default, and the deployment is generated.
    let dir = manifest_dir("warn", &format!("tiers = [\"first\", \"second\"]\n{}", two.replace("TIER", "second")));
    let generated = Config::new().manifest(dir.join("toolseal.toml")).generate().expect("generates");
    assert_eq!(generated[0].module, "deployment");
    assert!(generated[0].warnings.iter().any(|w| w.contains("\"read\"") && w.contains("b__read")), "{:?}", generated[0].warnings);
    assert_eq!(generated[0].contracts.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["deployment.a", "deployment.b"]);
    assert_eq!(generated[0].inputs.len(), 3, "the manifest and both registries");
    std::fs::remove_dir_all(&dir).ok();
}
