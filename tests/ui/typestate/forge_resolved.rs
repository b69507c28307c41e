// `Resolved` is minted by resolution only: its constructor is private to toolseal.

use toolseal::pipeline::Resolved;
use toolseal_ui::bank::ToolCall;

fn main() {
    let call = ToolCall::from_json(br#"{"name":"get_balance","arguments":{"account_id":"acct-1"}}"#).unwrap();
    let _forged: Resolved<ToolCall> = Resolved::new(call, None, String::new(), "canonical", 0);
}
