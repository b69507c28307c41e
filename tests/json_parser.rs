//! `Json::parse` (toolseal's own parser) against `serde_json` driving the same
//! tree through serde: on every text both accept or both reject, and what they
//! accept is the same tree — member order, duplicates, number kinds and string
//! contents included; `Reader::skip_value` (the same checks, nothing built)
//! accepts the same texts. Texts are generated JSON, each also mutated at one byte.

use proptest::prelude::*;
use serde::Deserialize;
use toolseal_runtime::json::{Json, Reader};

/// The tree serde_json builds through `Json`'s `Deserialize`, if the text is JSON.
fn via_serde(text: &[u8]) -> Option<String> {
    let mut de = serde_json::Deserializer::from_slice(text);
    let tree = Json::deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(format!("{tree:?}"))
}

fn via_parser(text: &[u8]) -> Option<String> {
    Json::parse(text).ok().map(|tree| format!("{tree:?}"))
}

/// Whether `Reader::skip_value` (which checks without building) reads the text as one value.
fn skipped(text: &[u8]) -> bool {
    Reader::new(text).is_some_and(|mut r| r.skip_value().is_some() && r.at_end())
}

fn agree(text: &[u8]) {
    let parsed = via_parser(text);
    assert_eq!(parsed, via_serde(text), "on {:?}", String::from_utf8_lossy(text));
    assert_eq!(skipped(text), parsed.is_some(), "skipping {:?}", String::from_utf8_lossy(text));
}

fn whitespace() -> impl Strategy<Value = String> {
    "[ \t\n\r]{0,2}"
}

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![Just("null".to_owned()), Just("true".to_owned()), Just("false".to_owned()), "-?(0|[1-9][0-9]{0,20})(\\.[0-9]{1,6})?([eE][+-]?[0-9]{1,2})?", string(),]
}

fn string() -> impl Strategy<Value = String> {
    r#""([a-z é😀/]|\\["\\/bfnrt]|\\u[0-9a-cA-CeEfF][0-9a-fA-F]{3}|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}){0,8}""#
}

fn json_text() -> impl Strategy<Value = String> {
    scalar().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec((whitespace(), inner.clone(), whitespace()), 0..6)
                .prop_map(|items| format!("[{}]", items.iter().map(|(a, v, b)| format!("{a}{v}{b}")).collect::<Vec<_>>().join(","))),
            prop::collection::vec((string(), whitespace(), inner), 0..6).prop_map(|members| format!("{{{}}}", members.iter().map(|(k, w, v)| format!("{k}{w}:{w}{v}")).collect::<Vec<_>>().join(","))),
        ]
    })
}

/// A text with one byte deleted, replaced or inserted, or cut short.
fn mutated() -> impl Strategy<Value = Vec<u8>> {
    let bytes: &[u8] = b"{}[],:\"\\ 0123456789.eE+-tfnulrsa\x01\x1f\x7f\xc3\xa9\xff";
    (json_text(), any::<prop::sample::Index>(), 0..4u8, prop::sample::select(bytes.to_vec())).prop_map(|(text, at, op, byte)| {
        let mut b = text.into_bytes();
        let i = at.index(b.len() + 1);
        match op {
            0 if i < b.len() => {
                b.remove(i);
            }
            1 if i < b.len() => b[i] = byte,
            2 => b.insert(i, byte),
            _ => b.truncate(i),
        }
        b
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn generated_json_parses_as_serde_json_parses_it(text in json_text()) {
        prop_assert!(via_parser(text.as_bytes()).is_some(), "{text}");
        agree(text.as_bytes());
    }

    #[test]
    fn mutated_json_is_accepted_and_rejected_as_serde_json_does(text in mutated()) {
        agree(&text);
    }

    /// Doubles as Rust prints them (shortest round trip, plain and scientific)
    /// and integers of every width: the parser's fast path and its full parse
    /// give serde_json's numbers.
    #[test]
    fn numbers_parse_as_serde_json_parses_them(f in any::<f64>().prop_filter("finite", |f| f.is_finite()), i in any::<i64>(), u in any::<u64>(), digits in 1usize..20) {
        for text in [format!("{f}"), format!("{f:e}"), format!("{f:.*}", digits), format!("{i}"), format!("{u}"), format!("{i}.{u}"), format!("{u}e-{digits}")] {
            agree(text.as_bytes());
        }
    }
}

#[test]
fn edge_cases_agree() {
    let cases: &[&str] = &[
        "0",
        "-0",
        "-0.0",
        "1.0",
        "1E5",
        "1e-400",
        "1e400",
        "-1e400",
        "01",
        "-",
        "1.",
        ".5",
        "1e",
        "1e+",
        "+1",
        "--1",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "2.2250738585072011e-308",
        "0.1e1",
        "-01",
        // Where the digits folded while scanning decide, and where the full parse takes over.
        "9007199254740992.0",
        "9007199254740993.0",
        "-9007199254740993e0",
        "1234567890123456789",
        "12345678901234567890",
        "1234567890.123456789",
        "1234567890.1234567890",
        "-999999999999999999",
        "-9999999999999999999",
        "0.1",
        "4.35",
        "1e22",
        "1e23",
        "1e-22",
        "1e-23",
        "3e22",
        "9007199254740991e22",
        "9007199254740991e-22",
        "123.456e-20",
        "0.0000000000000000000001",
        "1.7976931348623157e308",
        "1.7976931348623159e308",
        "5e-324",
        "-0e5",
        "0e99999999999999999999",
        "1e00000000000000000000000000000000000000000001",
        "1e-99999999999999999999",
        "-0.0e-0",
        r#""\ud83d\ude00""#,
        r#""\ud83d""#,
        r#""\ude00""#,
        r#""\ud83dx""#,
        r#""\ud83d\u0041""#,
        r#""\u00e9\/""#,
        r#""\uD83D\uDE00""#,
        r#""\u12""#,
        r#""\x""#,
        "\"a\tb\"",
        "\"\u{7f}\"",
        r#""\"#,
        r#"""#,
        "\"é😀\"",
        "[1,]",
        "[,1]",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{1:1}",
        "{\"a\":1 \"b\":2}",
        "[1 2]",
        "{\"a\":1}}",
        "[]]",
        " [ ] ",
        "\u{feff}{}",
        "{}\u{b}",
        "\u{b}{}",
        "nul",
        "nulll",
        "tru",
        "True",
        "",
        " ",
        "{\"a\":{\"a\":[]}}",
        "{\"k\":1,\"k\":2}",
    ];
    for case in cases {
        agree(case.as_bytes());
    }
    for depth in [127, 128, 129, 100_000] {
        agree(format!("{}{}", "[".repeat(depth), "]".repeat(depth)).as_bytes());
        agree(format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth)).as_bytes());
    }
    agree(format!("\"{}\\n{}\"", "x".repeat(1000), "é".repeat(1000)).as_bytes());
    agree(b"\"\xff\"");
    agree(b"[\"a\", \xc3]");
}

#[test]
fn errors_say_what_and_where() {
    let message = |text: &str| Json::parse(text.as_bytes()).expect_err("not JSON").message;
    assert_eq!(message("{\"a\":\n  tru}"), "expected ident at line 2 column 6");
    assert_eq!(message("[1,2"), "EOF while parsing a list at line 1 column 5");
    assert_eq!(message("{} x"), "trailing characters at line 1 column 4");
    assert_eq!(message(&"[".repeat(200)), "recursion limit exceeded at line 1 column 128");
}
