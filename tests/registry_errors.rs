//! A registry toolseal cannot enforce exactly fails the build with the file,
//! the tool, the JSON pointer (in the file) and the keyword. Never a panic,
//! never a silently dropped constraint.

use std::path::Path;

use toolseal::runtime::schema::CompileOptions;
use toolseal_build::{generate_source, Config, Error};

fn tool(schema: &str) -> String {
    format!(r#"{{"tools":[{{"name":"t","inputSchema":{schema}}}]}}"#)
}

fn schema_error(registry: &str) -> (String, String, String) {
    match generate_source(registry.as_bytes(), Path::new("registry/x.json"), "m", &CompileOptions::default()) {
        Err(e @ Error::Schema { .. }) => {
            let text = e.to_string();
            let Error::Schema { tool, pointer, keyword, .. } = e else { unreachable!() };
            assert!(text.starts_with("registry/x.json: tool `t`: at `#"), "{text}");
            assert_eq!(tool, "t");
            (pointer, keyword, text)
        }
        other => panic!("expected a schema error for {registry}, got {other:?}"),
    }
}

#[test]
fn unsupported_or_malformed_keywords_name_file_tool_pointer_and_keyword() {
    let cases: &[(&str, &str, &str)] = &[
        (r#"{"type":"object","properties":{"a":{"not":{"type":"string"}}}}"#, "/tools/0/inputSchema/properties/a", "not"),
        (r#"{"type":"object","if":{},"then":{}}"#, "/tools/0/inputSchema", "if"),
        (r#"{"type":"object","patternProperties":{"^x":{}}}"#, "/tools/0/inputSchema", "patternProperties"),
        (r#"{"type":"object","properties":{"a":{"type":"string","pattern":"(?=x)y"}}}"#, "/tools/0/inputSchema/properties/a", "pattern"),
        (r#"{"type":"object","properties":{"a":{"type":"string","format":"color"}}}"#, "/tools/0/inputSchema/properties/a", "format"),
        (r#"{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}"#, "/tools/0/inputSchema/properties/a", "$ref"),
        (r##"{"type":"object","properties":{"a":{"$ref":"#/$defs/Missing"}}}"##, "/tools/0/inputSchema/properties/a", "$ref"),
        (r##"{"type":"object","$defs":{"X":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/X","maxLength":3}}}"##, "/tools/0/inputSchema/properties/a", "maxLength"),
        (r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}"#, "/tools/0/inputSchema", "required"),
        (r#"{"type":"string"}"#, "/tools/0/inputSchema", "type"),
        (r#"{"type":"object","properties":{"a":{"type":"integer","minimum":1,"default":0}}}"#, "/tools/0/inputSchema/properties/a", "default"),
        (r#"{"type":"object","properties":{"a":{"type":"string","anyOf":[{"maxLength":1},{"minLength":3}]}}}"#, "/tools/0/inputSchema/properties/a", "type"),
        (r#"{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"type":"integer"}]}}}"#, "/tools/0/inputSchema/properties/a", "allOf"),
        (r#"{"type":"object","properties":{"a":{"type":"strng"}}}"#, "/tools/0/inputSchema/properties/a", "type"),
        (r#"{"type":"object","properties":{"a":{"type":"string","minLength":-1}}}"#, "/tools/0/inputSchema/properties/a", "minLength"),
        (r#"{"type":"object","properties":{"a":{"enum":[]}}}"#, "/tools/0/inputSchema/properties/a", "enum"),
        (r#"{"type":"object","properties":{"a":{"type":"string","enum":[1,2]}}}"#, "/tools/0/inputSchema/properties/a", "enum"),
        (r#"{"type":"object","properties":{"a":{"minLength":1,"minimum":1}}}"#, "/tools/0/inputSchema/properties/a", "type"),
        (r#"{"type":"object","properties":{"a":{"type":"number","multipleOf":0}}}"#, "/tools/0/inputSchema/properties/a", "multipleOf"),
        (r#"{"type":"object","properties":{"a":7}}"#, "/tools/0/inputSchema/properties/a", "type"),
    ];
    for (schema, pointer, keyword) in cases {
        let (p, k, text) = schema_error(&tool(schema));
        assert_eq!((p.as_str(), k.as_str()), (*pointer, *keyword), "{text}");
    }
}

#[test]
fn every_vendor_format_points_into_its_own_layout() {
    let openai = r#"[{"type":"function","function":{"name":"t","parameters":{"type":"object","properties":{"a":{"not":{}}}}}}]"#;
    assert_eq!(schema_error(openai).0, "/0/function/parameters/properties/a");
    let bedrock = r#"{"toolConfig":{"tools":[{"toolSpec":{"name":"t","inputSchema":{"json":{"type":"object","oneOf":[]}}}}]}}"#;
    assert_eq!(schema_error(bedrock).0, "/toolConfig/tools/0/toolSpec/inputSchema/json");
    let anthropic = r#"[{"name":"t","input_schema":{"type":"object","properties":{"a":{"type":"string","format":"phone"}}}}]"#;
    assert_eq!(schema_error(anthropic).0, "/0/input_schema/properties/a");
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
    let options = CompileOptions { assert_formats: false };
    assert!(generate_source(registry.as_bytes(), Path::new("r.json"), "m", &options).is_ok());
}

#[test]
fn config_errors_are_errors() {
    let e = Config::new().module("x").generate().unwrap_err();
    assert!(matches!(e, Error::Config(_)), "{e}");
    let e = Config::new().registry("a.json").module("bad name").generate().unwrap_err();
    assert!(e.to_string().contains("bad name"), "{e}");
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
