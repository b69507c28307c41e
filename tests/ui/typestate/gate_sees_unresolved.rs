// A gate takes only a `Resolved` call: a raw, unresolved call does not type-check.

use toolseal::pipeline::{FrontierGate, Gate};
use toolseal_ui::bank::ToolCall;

fn main() {
    let call = ToolCall::from_json(br#"{"name":"get_balance","arguments":{"account_id":"acct-1"}}"#).unwrap();
    let gate = FrontierGate::new().allow((), ["get_balance"]);
    let _ = Gate::<ToolCall, ()>::check(&gate, &call, &());
}
