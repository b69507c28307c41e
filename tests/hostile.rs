//! The hostile-input catalogue: every entry a named test with a clear,
//! classified outcome — never a panic, a hang or a silent accept. Each input
//! goes through both resolvers (the generated enum and the dynamic resolver),
//! which must agree.

mod support;

use toolseal::{Class, Options};
use toolseal_fixtures::bank::ToolCall;
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::CompileOptions;

/// Resolves `call` with both resolvers; returns the class (or `None` when accepted) and the pointer.
fn verdict(call: &[u8]) -> Option<(Class, String)> {
    let registry = read_registry(&std::fs::read(support::root().join("examples/transfer_funds/registry/bank.json")).expect("bank")).expect("registry");
    let dynamic = DynamicRegistry::new(&registry, &CompileOptions::default());
    let generated = ToolCall::from_json(call).err().map(|r| (r.class(), r.pointer().to_owned()));
    let dynamic = dynamic.resolve(call, &Options::strict()).err().map(|r| (r.class(), r.pointer().to_owned()));
    assert_eq!(generated, dynamic, "the two resolvers agree on {:?}", String::from_utf8_lossy(&call[..call.len().min(200)]));
    generated
}

fn transfer(arguments: &str) -> Vec<u8> {
    format!(r#"{{"name":"transfer_funds","arguments":{arguments}}}"#).into_bytes()
}

fn class(call: &[u8]) -> Option<Class> {
    verdict(call).map(|(c, _)| c)
}

#[test]
fn duplicate_keys_at_any_depth() {
    assert_eq!(verdict(br#"{"name":"get_balance","name":"transfer_funds","arguments":{"account_id":"acct-1"}}"#).map(|v| v.0), Some(Class::Malformed));
    assert_eq!(verdict(&transfer(r#"{"recipient_id":"acct-7","amount":1,"amount":1000000}"#)), Some((Class::H2, "/arguments/amount".into())));
    let nested = br#"{"name":"list_transactions","arguments":{"account_id":"acct-1","account_id":"acct-2"}}"#;
    assert_eq!(class(nested), Some(Class::H2));
}

#[test]
fn nesting_100_000_deep_is_a_depth_error_not_a_stack_overflow() {
    let deep_array = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let (c, _) = verdict(&transfer(&format!(r#"{{"recipient_id":"acct-7","amount":1,"memo":{deep_array}}}"#))).expect("rejected");
    assert_eq!(c, Class::Malformed);
    let deep_object = format!("{}1{}", r#"{"a":"#.repeat(100_000), "}".repeat(100_000));
    assert_eq!(class(&transfer(&deep_object)), Some(Class::Malformed));
}

#[test]
fn a_64_mib_string_and_a_64_mib_call_are_refused_before_parsing() {
    let started = std::time::Instant::now();
    let huge = transfer(&format!(r#"{{"recipient_id":"acct-7","amount":1,"memo":"{}"}}"#, "a".repeat(64 << 20)));
    let r = ToolCall::from_json(&huge).expect_err("too large");
    assert_eq!(r.class(), Class::Malformed);
    assert!(r.to_string().contains("limit") && r.to_string().len() < 200, "{r}");
    assert!(started.elapsed().as_secs() < 5, "the size is checked before parsing");
    let garbage = vec![b'['; 64 << 20];
    assert_eq!(ToolCall::from_json(&garbage).expect_err("too large").class(), Class::Malformed);
    // The limit is configurable.
    let options = Options { max_bytes: 100 << 20, ..Options::strict() };
    assert_eq!(ToolCall::from_json_with(&huge, &options).expect_err("memo maxLength 140").class(), Class::H3);
}

#[test]
fn numbers_beyond_every_range_and_non_numbers() {
    let list = |limit: &str| format!(r#"{{"name":"list_transactions","arguments":{{"account_id":"acct-1","limit":{limit}}}}}"#).into_bytes();
    assert_eq!(class(&list("18446744073709551616")), Some(Class::H3), "beyond u64");
    assert_eq!(class(&list("-9223372036854775809")), Some(Class::H3), "beyond i64");
    assert_eq!(class(&list("99999999999999999999999999999")), Some(Class::H3));
    assert_eq!(class(&list("-0")), Some(Class::H3), "-0 is 0, below the minimum 1");
    assert_eq!(class(&list("1e400")), Some(Class::Malformed), "not a finite number");
    assert_eq!(class(&list("NaN")), Some(Class::Malformed));
    assert_eq!(class(&list("Infinity")), Some(Class::Malformed));
    assert_eq!(class(&list("-Infinity")), Some(Class::Malformed));
    assert_eq!(class(&list("10.0")), None, "an integer written with a fraction of zero is an integer");
    assert_eq!(class(&list("10.5")), Some(Class::H3));
}

#[test]
fn strings_with_lone_surrogates_nul_and_invalid_utf8() {
    assert_eq!(class(&transfer(r#"{"recipient_id":"acct-7","amount":1,"memo":"\ud800"}"#)), Some(Class::Malformed), "a lone surrogate is not text");
    assert_eq!(class(&transfer(r#"{"recipient_id":"acct-7","amount":1,"memo":"a\u0000b"}"#)), None, "NUL is a valid character in a free string");
    assert_eq!(class(&transfer(r#"{"recipient_id":"acct-7\u0000","amount":1}"#)), Some(Class::H3), "but not in a pattern-checked id");
    let mut invalid = transfer(r#"{"recipient_id":"acct-7","amount":1,"memo":"xx"}"#);
    let at = invalid.iter().rposition(|b| *b == b'x').expect("x");
    invalid[at] = 0xff;
    assert_eq!(class(&invalid), Some(Class::Malformed));
}

#[test]
fn envelope_oddities() {
    let honest = br#"{"name":"get_balance","arguments":{"account_id":"acct-1"}}"#;
    assert_eq!(class(honest), None);
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend_from_slice(honest);
    assert_eq!(class(&bom), Some(Class::Malformed), "a byte-order mark is not JSON");
    let mut trailing = honest.to_vec();
    trailing.extend_from_slice(b" {}");
    assert_eq!(class(&trailing), Some(Class::Malformed), "trailing bytes");
    assert_eq!(class(br#"[{"name":"get_balance","arguments":{"account_id":"acct-1"}}]"#), Some(Class::Malformed), "a top-level array");
    assert_eq!(class(b""), Some(Class::Malformed));
    assert_eq!(class(b"   "), Some(Class::Malformed));
}

#[test]
fn arguments_double_encoded_as_a_string() {
    // The canonical object carries arguments as an object: a string is not decoded for the model.
    let (c, pointer) = verdict(br#"{"name":"get_balance","arguments":"{\"account_id\":\"acct-1\"}"}"#).expect("rejected");
    assert_eq!((c, pointer.as_str()), (Class::H3, "/arguments"));
}

#[test]
fn tool_names_are_compared_exactly() {
    for name in ["get_balance\u{200b}", "get\u{200d}_balance", "g\u{0435}t_balance", "Get_Balance", "GET_BALANCE", " get_balance", "get_balance ", "get_balance\n", "get－balance"] {
        let call = format!(r#"{{"name":{},"arguments":{{"account_id":"acct-1"}}}}"#, serde_json::to_string(name).expect("json"));
        assert_eq!(verdict(call.as_bytes()), Some((Class::H1, "/name".into())), "{name:?}");
    }
}

#[test]
fn keys_differing_only_by_unicode_normalisation_are_other_keys() {
    // A registry key in NFC; the call spells it in NFD. No normalisation: an undeclared key.
    let registry = read_registry(r#"{"tools":[{"name":"cafe","inputSchema":{"type":"object","properties":{"café":{"type":"string"}},"additionalProperties":false}}]}"#.as_bytes()).expect("registry");
    let dynamic = DynamicRegistry::new(&registry, &CompileOptions::default());
    let nfc = dynamic.resolve("{\"name\":\"cafe\",\"arguments\":{\"caf\u{e9}\":\"x\"}}".as_bytes(), &Options::strict());
    assert!(nfc.is_ok());
    let nfd = dynamic.resolve("{\"name\":\"cafe\",\"arguments\":{\"cafe\u{301}\":\"x\"}}".as_bytes(), &Options::strict()).expect_err("another key");
    assert_eq!(nfd.class(), Class::H2);
}

#[test]
fn another_tools_arguments_that_fit_are_accepted_and_recorded() {
    use toolseal::pipeline::{Authorized, FrontierGate, MemorySink, Outcome, Pipeline};
    // freeze_account's shape minus its `reason` is exactly get_balance's: H5, undecidable from the schema.
    let sink = std::sync::Arc::new(MemorySink::new());
    let pipeline: Pipeline<ToolCall, ()> = Pipeline::new(FrontierGate::new().allow((), ["get_balance"])).audit(sink.clone());
    let run = pipeline.run(br#"{"name":"get_balance","arguments":{"account_id":"acct-7"}}"#, &(), &|_: Authorized<ToolCall>| Ok::<_, String>(()));
    assert!(matches!(run.outcome, Outcome::Executed { .. }));
    let record = &sink.records()[0];
    assert!(record.executed && record.rejection.is_none());
    assert_eq!(record.tool.as_deref(), Some("get_balance"), "the record names the tool the call was bound to");
}

/// Found by `tests/random_differential.rs`: under `oneOf`, a null that another
/// option also accepts matches twice and is invalid (it used to be accepted).
#[test]
fn one_of_with_null_counts_null_against_every_option() {
    let registry =
        read_registry(br#"{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"v":{"oneOf":[{},{"type":"null"}]},"w":{"anyOf":[{},{"type":"null"}]}},"additionalProperties":false}}]}"#)
            .expect("registry");
    let dynamic = DynamicRegistry::new(&registry, &CompileOptions::default());
    let r = dynamic.resolve(br#"{"name":"t","arguments":{"v":null}}"#, &Options::strict()).expect_err("null matches both options");
    assert_eq!((r.class(), r.pointer()), (Class::H3, "/arguments/v"));
    assert!(dynamic.resolve(br#"{"name":"t","arguments":{"v":1,"w":null}}"#, &Options::strict()).is_ok());
}

/// Found by `tests/random_differential.rs`: integers beyond 2^53 are compared
/// exactly, not through f64 (2^53 + 1 is odd and above a maximum of 2^53).
#[test]
fn large_integers_are_compared_exactly() {
    let registry = read_registry(br#"{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"even":{"type":"integer","multipleOf":2},"n":{"type":"number","maximum":9007199254740992}},"additionalProperties":false}}]}"#).expect("registry");
    let dynamic = DynamicRegistry::new(&registry, &CompileOptions::default());
    let odd = dynamic.resolve(br#"{"name":"t","arguments":{"even":9007199254740993}}"#, &Options::strict()).expect_err("odd");
    assert_eq!(odd.keyword().map(|k| k.as_str()), Some("multipleOf"));
    assert!(dynamic.resolve(br#"{"name":"t","arguments":{"even":9007199254740994}}"#, &Options::strict()).is_ok());
    let above = dynamic.resolve(br#"{"name":"t","arguments":{"n":9007199254740993}}"#, &Options::strict()).expect_err("above the maximum");
    assert_eq!(above.keyword().map(|k| k.as_str()), Some("maximum"));
}

#[test]
fn arguments_before_the_name_are_read_whole_however_their_strings_look() {
    use toolseal_fixtures::{Reading, reading};
    let first = |arguments: &str| format!(r#"{{"arguments":{arguments},"name":"transfer_funds"}}"#).into_bytes();
    // Brackets and escaped quotes inside strings do not end the arguments early.
    let tricky = first(r#"{"recipient_id":"acct-7","amount":1,"memo":"}]\"{[\\"}"#);
    assert_eq!(class(&tricky), None);
    assert!(matches!(reading::<ToolCall>(&tricky), Reading::Same), "{:?}", reading::<ToolCall>(&tricky));
    for bad in [
        first(r#"{"recipient_id":"acct-7","amount":1,"memo":"x\"}"#),
        first(r#"{"recipient_id":"acct-7","amount":1}}"#),
        first(r#"{"recipient_id":"acct-7","amount":1,"memo":"}"#),
        first(&format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000))),
        br#"{"arguments":{"recipient_id":"acct-7","amount":1},"name":"transfer_funds","name":"get_balance"}"#.to_vec(),
    ] {
        assert_eq!(class(&bad), Some(Class::Malformed), "{}", String::from_utf8_lossy(&bad[..bad.len().min(120)]));
        assert!(matches!(reading::<ToolCall>(&bad), Reading::Rejected { by_reader: false, .. }), "{}", String::from_utf8_lossy(&bad[..bad.len().min(120)]));
    }
    // An undeclared key is rejected by the reader with the tree's rejection, in either order.
    let undeclared = first(r#"{"recipient_id":"acct-7","amount":1,"override":true}"#);
    assert_eq!(verdict(&undeclared), Some((Class::H2, "/arguments/override".into())));
    assert!(matches!(reading::<ToolCall>(&undeclared), Reading::Rejected { by_reader: true, .. }));
}
