//! `#[derive(toolseal::Args)]` by hand: a tool written code-first (no registry
//! file) gets the closed world generated code gets. A hand-written struct and the
//! type generated from the bank registry's `transfer_funds` are held to the same
//! verdicts (class, pointer, message), the same values and the same fused reader
//! on every probe the registry's schema gives; the hand-written type's own JSON
//! Schema, compiled as a registry, gives those verdicts too.

use serde_json::Value;
use toolseal::{Args, FromJson};
use toolseal_fixtures::bank;
use toolseal_runtime::check::Cx;
use toolseal_runtime::json::{Json, Reader};
use toolseal_runtime::path::Path;
use toolseal_runtime::probe::{Expect, probes};
use toolseal_runtime::registry::Registry;
use toolseal_runtime::schema::{CompileOptions, compile_tool_schema};

/// Arguments of the `transfer_funds` tool.
#[derive(Debug, Clone, PartialEq, Args)]
struct Transfer {
    /// Opaque account id of the recipient.
    #[toolseal(pattern = "^acct-[0-9]{1,12}$")]
    recipient_id: String,
    /// Amount to transfer, in the account currency.
    #[toolseal(exclusive_minimum = 0, maximum = 10000)]
    amount: f64,
    #[toolseal(default = Currency::Eur)]
    currency: Currency,
    #[toolseal(max_length = 140)]
    memo: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Args)]
enum Currency {
    #[toolseal(rename = "EUR")]
    Eur,
    #[toolseal(rename = "USD")]
    Usd,
    #[toolseal(rename = "GBP")]
    Gbp,
}

/// An account id, a newtype.
#[derive(Debug, Clone, PartialEq, Args)]
#[toolseal(pattern = "^acct-[0-9]{1,12}$")]
struct AccountId(String);

/// Arguments of the `get_balance` tool, through the newtype.
#[derive(Debug, Clone, PartialEq, Args)]
struct Balance {
    account_id: AccountId,
}

/// What a type makes of `arguments`: the value back as JSON, or the rejection's class, pointer and words.
fn verdict<T: FromJson + serde::Serialize>(arguments: &Json<'_>) -> Result<Value, (toolseal::Class, String, String)> {
    let root = Path::root();
    T::from_json(arguments, &root.key("arguments"), &mut Cx::strict()).map(|t| serde_json::to_value(&t).expect("serializes")).map_err(|r| (r.class(), r.pointer().to_owned(), r.to_string()))
}

/// What the fused reader makes of `text`: `Some` exactly when the tree accepts it, with the same value.
fn read<T: FromJson + serde::Serialize>(text: &str) -> Option<Value> {
    let mut r = Reader::new(text.as_bytes())?;
    T::read(&mut r).map(|t| serde_json::to_value(&t).expect("serializes"))
}

fn registry_schema(tool: &str) -> Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/transfer_funds/registry/bank.json")).expect("the bank registry");
    let registry: Value = serde_json::from_str(&text).expect("JSON");
    registry["tools"].as_array().and_then(|t| t.iter().find(|t| t["name"] == tool)).expect("the tool")["inputSchema"].clone()
}

/// Every probe of `tool`'s registry schema that reaches its arguments.
fn argument_probes(tool: &str) -> Vec<(String, Expect, Value)> {
    let doc = compile_tool_schema(&Json::from_value(&registry_schema(tool)).into_owned(), &CompileOptions::default()).expect("compiles");
    probes(&[tool], tool, &doc)
        .into_iter()
        .filter_map(|p| {
            let call: Value = serde_json::from_str(&p.call).ok()?;
            (call["name"] == tool && !p.label.contains("duplicate")).then(|| (p.label, p.expect, call["arguments"].clone()))
        })
        .collect()
}

#[test]
fn a_hand_written_struct_and_the_generated_one_give_the_same_verdicts() {
    for (tool, hand, generated, hand_read, generated_read) in [
        (
            "transfer_funds",
            verdict::<Transfer> as fn(&Json<'_>) -> _,
            verdict::<bank::TransferFundsArgs> as fn(&Json<'_>) -> _,
            read::<Transfer> as fn(&str) -> _,
            read::<bank::TransferFundsArgs> as fn(&str) -> _,
        ),
        ("get_balance", verdict::<Balance>, verdict::<bank::GetBalanceArgs>, read::<Balance>, read::<bank::GetBalanceArgs>),
    ] {
        let probes = argument_probes(tool);
        assert!(probes.len() >= 6, "{tool}: {} probes", probes.len());
        let (mut accepted, mut rejected) = (0, 0);
        for (label, expect, arguments) in probes {
            let tree = Json::from_value(&arguments);
            let (h, g) = (hand(&tree), generated(&tree));
            assert_eq!(h, g, "{tool} {label}: {arguments}");
            match (&expect, &h) {
                (Expect::Accept, Ok(_)) => accepted += 1,
                (Expect::Reject { class, pointer, .. }, Err((c, p, _))) if c == class && p == pointer => rejected += 1,
                _ => panic!("{tool} {label}: expected {expect:?}, got {h:?}"),
            }
            let text = arguments.to_string();
            assert_eq!(hand_read(&text), generated_read(&text), "{tool} {label}: the fused readers");
            assert_eq!(hand_read(&text), h.ok(), "{tool} {label}: the reader accepts exactly what the tree accepts");
        }
        assert!(accepted >= 2 && rejected >= 4, "{tool}: {accepted} accepted, {rejected} rejected");
    }
}

#[test]
fn a_hand_written_struct_enforces_the_schema_it_shows() {
    let shown = schemars::schema_for!(Transfer).to_value();
    let listing = serde_json::json!([{"name": "transfer_funds", "inputSchema": shown}]);
    let registry = Registry::from_listed(listing.as_array().expect("tools")).expect("a registry");
    let dynamic = toolseal::dynamic::DynamicRegistry::new(&registry, &CompileOptions::default());
    assert_eq!(dynamic.quarantined().count(), 0, "the shown schema compiles");
    for (label, _, arguments) in argument_probes("transfer_funds") {
        let call = serde_json::json!({"name": "transfer_funds", "arguments": arguments}).to_string();
        let by_schema = dynamic.resolve(call.as_bytes(), &toolseal::Options::strict()).map(drop).map_err(|r| (r.class(), r.pointer().to_owned()));
        let by_type = verdict::<Transfer>(&Json::from_value(&arguments)).map(drop).map_err(|(c, p, _)| (c, p));
        assert_eq!(by_schema, by_type, "{label}: {arguments}");
    }
    let described = &shown["properties"]["recipient_id"]["description"];
    assert_eq!(described, "Opaque account id of the recipient.", "a constrained field's docs are its description");
    assert_eq!(shown["description"], "Arguments of the `transfer_funds` tool.");
    assert_eq!(shown["additionalProperties"], false);
}

#[test]
fn newtypes_and_string_enums_check_what_they_are_given() {
    assert_eq!(AccountId::try_from("acct-7".to_owned()).map(AccountId::into_inner).ok().as_deref(), Some("acct-7"));
    let e = AccountId::try_from("7".to_owned()).expect_err("the pattern");
    assert_eq!(e.class(), toolseal::Class::H3);
    assert_eq!(Currency::Usd.as_str(), "USD");
    assert_eq!(serde_json::to_value(Currency::Gbp).expect("serializes"), "GBP");
    let e = serde_json::from_str::<Currency>("\"eur\"").expect_err("not a value");
    assert!(e.to_string().contains(r#"one of "EUR", "USD", "GBP""#), "{e}");
    let t: Transfer = serde_json::from_str(r#"{"recipient_id": "acct-1", "amount": 5}"#).expect("an honest call");
    assert_eq!((t.currency, t.memo.as_deref()), (Currency::Eur, None), "the default applies; the optional key stays absent");
    assert_eq!(serde_json::to_value(&t).expect("serializes"), serde_json::json!({"recipient_id": "acct-1", "amount": 5.0, "currency": "EUR"}));
    assert!(serde_json::from_str::<Transfer>(r#"{"recipient_id": "acct-1", "amount": 5, "override": true}"#).is_err(), "H2");
}
