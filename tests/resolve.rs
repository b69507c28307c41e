//! Behaviour of generated code on calls chosen one by one: integer semantics,
//! the call envelope, lenient mode, defaults, renamed keys, newtypes, serde.

mod support;

use toolseal::{Class, Keyword, Options, Reason};
use toolseal_fixtures::{bank, keywords};
use toolseal_runtime::registry::read_registry;

fn reject(call: &str) -> toolseal::Rejection {
    match keywords::ToolCall::from_json(call.as_bytes()) {
        Ok(c) => panic!("accepted {call}: {c:?}"),
        Err(r) => r,
    }
}

fn accept(call: &str) -> keywords::ToolCall {
    keywords::ToolCall::from_json(call.as_bytes()).unwrap_or_else(|r| panic!("rejected {call}: {r}"))
}

fn numbers(args: &str) -> String {
    format!(r#"{{"name":"numbers","arguments":{args}}}"#)
}

#[test]
fn integers_follow_json_schema() {
    let keywords::ToolCall::Numbers(a) = accept(&numbers(r#"{"count":1.0}"#)) else { panic!() };
    assert_eq!(*a.count.get(), 1);
    let r = reject(&numbers(r#"{"count":1.5}"#));
    assert_eq!((r.class(), r.pointer(), r.keyword()), (Class::H3, "/arguments/count", Some(Keyword::Type)));
    let r = reject(&numbers(r#"{"count":0,"big":9223372036854775808}"#));
    assert_eq!((r.class(), r.pointer(), r.keyword()), (Class::H3, "/arguments/big", Some(Keyword::Maximum)));
    let r = reject(&numbers(r#"{"count":-1}"#));
    assert_eq!((r.class(), r.keyword()), (Class::H3, Some(Keyword::Minimum)));
    let r = reject(&numbers(r#"{"count":0,"any_number":1e400}"#));
    assert_eq!(r.class(), Class::Malformed, "1e400 is not a finite JSON number: {r}");
    let r = reject(&numbers(r#"{"count":0,"ratio":-0}"#));
    assert_eq!(r.keyword(), Some(Keyword::ExclusiveMinimum), "-0 is 0, not above 0");
}

#[test]
fn numeric_strings_are_h3_in_strict_mode_and_recorded_in_lenient_mode() {
    let call = numbers(r#"{"count":"3","price":"1.25"}"#);
    let r = reject(&call);
    assert!(r.is_numeric_string());
    assert_eq!((r.class(), r.pointer()), (Class::H3, "/arguments/count"));
    let resolved = keywords::ToolCall::from_json_with(call.as_bytes(), &Options::lenient()).expect("lenient coerces");
    let pointers: Vec<&str> = resolved.coercions.iter().map(|c| c.pointer.as_str()).collect();
    assert_eq!(pointers, ["/arguments/count", "/arguments/price"]);
    let keywords::ToolCall::Numbers(a) = resolved.call else { panic!() };
    assert_eq!((*a.count.get(), a.price.map(|p| *p.get())), (3, Some(1.25)));
    let not_a_number = numbers(r#"{"count":"three"}"#);
    let r = keywords::ToolCall::from_json_with(not_a_number.as_bytes(), &Options::lenient()).unwrap_err();
    assert!(!r.is_numeric_string(), "a genuine type error stays one");
}

#[test]
fn absent_or_null_arguments_mean_an_empty_object() {
    assert!(matches!(accept(r#"{"name":"no_params"}"#), keywords::ToolCall::NoParams(_)));
    assert!(matches!(accept(r#"{"arguments":null,"name":"no_params"}"#), keywords::ToolCall::NoParams(_)));
    let r = reject(r#"{"name":"no_params","arguments":{"anything":1}}"#);
    assert_eq!((r.class(), r.pointer()), (Class::H2, "/arguments/anything"));
    let r = reject(r#"{"name":"strings"}"#);
    assert_eq!((r.class(), r.pointer()), (Class::H2, "/arguments/plain"));
    let r = reject(r#"{"name":"strings","arguments":"{\"plain\":\"a\"}"}"#);
    assert_eq!((r.class(), r.pointer(), r.keyword()), (Class::H3, "/arguments", Some(Keyword::Type)), "double-encoded arguments are not unwrapped");
}

#[test]
fn the_envelope_is_checked_before_the_name() {
    let cases: &[(&[u8], &str)] = &[
        (b"not json", ""),
        (b"[1]", ""),
        (br#"{"arguments":{}}"#, "/name"),
        (br#"{"name":7}"#, "/name"),
        (br#"{"name":"no_params","id":"call_1"}"#, "/id"),
        (br#"{"name":"no_params","name":"strings"}"#, "/name"),
        (br#"{"name":"no_params"} trailing"#, ""),
        (b"\xef\xbb\xbf{\"name\":\"no_params\"}", ""),
        (b"{\"name\":\"\xff\"}", ""),
    ];
    for (call, pointer) in cases {
        let r = keywords::ToolCall::from_json(call).unwrap_err();
        assert_eq!((r.class(), r.pointer()), (Class::Malformed, *pointer), "{}", String::from_utf8_lossy(call));
    }
    let big = format!(r#"{{"name":"strings","arguments":{{"plain":"{}","code":"ABC-12"}}}}"#, "a".repeat(2 << 20));
    let r = reject(&big);
    assert!(matches!(r.reason(), Reason::TooLarge { .. }), "{r}");
    let options = Options { max_bytes: 8 << 20, ..Options::strict() };
    assert!(keywords::ToolCall::from_json_with(big.as_bytes(), &options).is_ok(), "the limit is configurable");
}

#[test]
fn duplicate_keys_are_rejected_at_any_depth() {
    let r = reject(r#"{"name":"objects","arguments":{"address":{"street":"a","street":"b"}}}"#);
    assert_eq!((r.class(), r.pointer()), (Class::H2, "/arguments/address/street"));
    let r = reject(r#"{"name":"objects","arguments":{"address":{"street":"a"},"meta":{"k":[{"x":1,"x":2}]}}}"#);
    assert_eq!((r.class(), r.pointer()), (Class::H2, "/arguments/meta/k/0/x"));
    let r = reject(r#"{"name":"objects","arguments":{"address":{"street":"a"},"labels":{"k":"v","k":"w"}}}"#);
    assert_eq!((r.class(), r.pointer()), (Class::H2, "/arguments/labels/k"));
}

#[test]
fn lengths_count_code_points() {
    accept(r#"{"name":"strings","arguments":{"plain":"","code":"ABC-12","short":"héé"}}"#);
    let r = reject(r#"{"name":"strings","arguments":{"plain":"","code":"ABC-12","short":"héé!"}}"#);
    assert_eq!(r.keyword(), Some(Keyword::MaxLength));
    let r = reject(r#"{"name":"strings","arguments":{"plain":"","code":"ABC-١٢"}}"#);
    assert_eq!(r.keyword(), Some(Keyword::Pattern), "ECMA \\d is ASCII only");
}

#[test]
fn h1_does_not_normalise_names() {
    for name in ["Strings", "strings ", "strings\u{200b}", "ѕtrings", "STRINGS", " strings"] {
        let r = reject(&format!(r#"{{"name":"{name}","arguments":{{}}}}"#));
        assert_eq!((r.class(), r.pointer()), (Class::H1, "/name"), "{name:?}");
    }
    let r = reject(r#"{"name":"string","arguments":{}}"#);
    assert_eq!(r.suggestions(), ["strings"]);
    assert!(!r.to_string().contains('\n'));
}

#[test]
fn defaults_are_applied_and_serialized() {
    let keywords::ToolCall::Defaults(d) = accept(r#"{"name":"defaults","arguments":{}}"#) else { panic!() };
    assert_eq!((d.mode, *d.retries.get(), d.verbose, d.base.clone(), d.tags.clone()), (keywords::DefaultsMode::Fast, 3, false, None, Vec::<String>::new()));
    let call = accept(r#"{"name":"defaults","arguments":{}}"#);
    assert_eq!(call.arguments(), serde_json::json!({"mode":"fast","retries":3,"verbose":false,"base":null,"tags":[]}));
}

#[test]
fn json_names_that_are_not_rust_identifiers_round_trip() {
    let text = r#"{"name":"odd-names.tool","arguments":{"get-sum":1,"math.hypot":2.5,"type":"t","self":true,"aB":"x","a_b":"y","2fa":"z","a/b~c":"w"}}"#;
    let call = accept(text);
    let keywords::ToolCall::OddNamesTool(a) = &call else { panic!() };
    assert_eq!((a.get_sum, a.r#type.as_str(), a.self_, a.a_b.as_deref(), a.a_b2.as_deref(), a._2fa.as_deref(), a.a_b_c.as_str()), (Some(1), "t", Some(true), Some("x"), Some("y"), Some("z"), "w"));
    assert_eq!(call.name(), "odd-names.tool");
    let again = serde_json::to_string(&call).expect("serializes");
    assert_eq!(keywords::ToolCall::from_json(again.as_bytes()).expect("round trip"), call);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&again).unwrap(), serde_json::from_str::<serde_json::Value>(text).unwrap());
}

#[test]
fn newtypes_validate_on_every_way_in() {
    use std::convert::TryFrom;
    assert!(bank::TransferFundsAmount::try_from(0.0).is_err());
    assert_eq!(*bank::TransferFundsAmount::try_from(5.0).expect("in range").get(), 5.0);
    assert!(bank::TransferFundsRecipientId::try_from("acct-x".to_owned()).is_err());
    let err = serde_json::from_str::<bank::TransferFundsArgs>(r#"{"recipient_id":"acct-7","amount":1,"override":true}"#).unwrap_err();
    assert!(err.to_string().contains("override"), "{err}");
    let ok: bank::TransferFundsArgs = serde_json::from_str(r#"{"recipient_id":"acct-7","amount":1}"#).expect("valid");
    assert_eq!(ok.currency, bank::TransferFundsCurrency::Eur);
}

#[test]
fn tool_info_carries_the_registry_definition_and_digest() {
    let bytes = std::fs::read(support::root().join("examples/transfer_funds/registry/bank.json")).unwrap();
    let registry = read_registry(&bytes).unwrap();
    for (def, info) in registry.tools.iter().zip(bank::ToolCall::TOOLS) {
        assert_eq!((def.name.as_str(), def.digest(), def.canonical()), (info.name, info.digest.to_owned(), info.definition.to_owned()));
    }
    let call = bank::ToolCall::from_json(br#"{"name":"get_balance","arguments":{"account_id":"acct-1"}}"#).unwrap();
    assert_eq!(call.info().annotations.read_only_hint, Some(true));
    assert_eq!(call.info().digest.len(), 64);
}

#[test]
fn the_worked_example() {
    let r = bank::ToolCall::from_json(br#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":"all of it","override":true}}"#).unwrap_err();
    assert_eq!((r.class(), r.pointer()), (Class::H2, "/arguments/override"));
    assert_eq!(r.suggestions(), ["recipient_id", "amount", "currency", "memo"]);
    let r = bank::ToolCall::from_json(br#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":"all of it"}}"#).unwrap_err();
    assert_eq!((r.class(), r.pointer(), r.found()), (Class::H3, "/arguments/amount", Some(toolseal::JsonKind::String)));
    assert!(!r.is_numeric_string());
}

#[test]
#[should_panic(expected = "toolseal-build wrote a JSON literal that does not parse")]
fn a_generated_json_value_literal_that_does_not_parse_is_never_null() {
    let _ = toolseal::__private::json_literal(r#"{"const":"#);
}

#[test]
#[should_panic(expected = "toolseal-build wrote a JSON literal that does not parse")]
fn a_generated_json_tree_literal_that_does_not_parse_is_never_null() {
    let _ = toolseal::__private::json_tree("[1,");
}

#[test]
fn a_value_that_cannot_be_serialized_is_rejected_not_checked_as_null() {
    // Map keys that are not strings cannot be written as JSON: a free-form
    // (`serde_json::Value`) newtype would have accepted the `null` it used to become.
    let inner: std::collections::BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into_iter().collect();
    let r = toolseal::__private::try_from_serialize::<serde_json::Value, _>(&inner).expect_err("not JSON");
    assert_eq!((r.class(), r.pointer()), (Class::Malformed, ""));
    assert!(r.to_string().contains("cannot be written as JSON"), "{r}");
    let ok = toolseal::__private::try_from_serialize::<serde_json::Value, _>(&[1, 2]).expect("JSON");
    assert_eq!(ok, serde_json::json!([1, 2]));
}
