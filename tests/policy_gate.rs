//! The Cedar gate (`toolseal_policy::CedarGate`) in the library's `Pipeline`, over a generated `ToolCall` (the
//! worked example's bank registry): resolution first, then the policies.

use serde_json::{Value, json};
use toolseal::pipeline::{Outcome, Pipeline};
use toolseal_fixtures::bank::ToolCall;
use toolseal_policy::{CedarGate, PolicyError, PolicyFile, Principal};

fn file(text: &str) -> PolicyFile {
    PolicyFile { path: "bank.cedar".into(), text: text.into() }
}

fn teller() -> Principal {
    Principal { name: "teller".into(), groups: vec!["branch".into()] }
}

#[test]
fn a_pipeline_decides_resolved_calls_by_cedar_policies() {
    let policies = file(
        "permit(principal, action, resource);\n@id(\"no-nines\") @reason(\"accounts acct-9… are frozen\")\nforbid(principal, action == Action::\"transfer_funds\", resource) when { context.input.recipient_id like \"acct-9*\" };\n",
    );
    let gate = CedarGate::<ToolCall>::new("bank", &[policies], teller(), ToolCall::arguments).expect("the policies hold");
    let pipeline = Pipeline::new(gate);
    let executor = |call: toolseal::pipeline::Authorized<ToolCall>| -> Result<Value, String> { Ok(json!({ "ran": call.call().name() })) };
    let run = pipeline.run(br#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":25}}"#, &(), &executor);
    assert!(matches!(run.outcome, Outcome::Executed { .. }), "{:?}", run.outcome);
    let run = pipeline.run(br#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-99","amount":25}}"#, &(), &executor);
    let Outcome::Denied { reason } = &run.outcome else { panic!("{:?}", run.outcome) };
    assert!(reason.contains("denied by policy `no-nines`: accounts acct-9… are frozen"), "{reason}");
    // Resolution first: an unresolved call never reaches the policies.
    let run = pipeline.run(br#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-99","amount":25,"force":true}}"#, &(), &executor);
    assert!(matches!(run.outcome, Outcome::Rejected(_)), "{:?}", run.outcome);
    assert_eq!(run.record.decision, None);
}

#[test]
fn the_sealed_enums_schema_refuses_what_it_cannot_type() {
    // `amount` is a JSON Schema number: no policy can compare it.
    let Err(PolicyError::Invalid(problems)) =
        CedarGate::<ToolCall>::new("bank", &[file("forbid(principal, action == Action::\"transfer_funds\", resource) when { context.input.amount > 1000 };")], teller(), ToolCall::arguments)
    else {
        panic!("refused")
    };
    assert!(problems[0].to_string().contains("argument `amount` of `transfer_funds` is a number"), "{problems:?}");
    let Err(PolicyError::Invalid(problems)) = CedarGate::<ToolCall>::new("bank", &[file("forbid(principal, action == Action::\"transfer_fund\", resource);")], teller(), ToolCall::arguments) else {
        panic!("refused")
    };
    assert!(problems[0].to_string().ends_with("`transfer_fund` is not a tool of this deployment; did you mean `transfer_funds`?"), "{problems:?}");
}
