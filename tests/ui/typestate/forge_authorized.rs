// `Authorized` is minted by the pipeline only: its fields are private.

use toolseal::pipeline::Authorized;
use toolseal_ui::bank::ToolCall;

fn main() {
    let call = ToolCall::from_json(br#"{"name":"get_balance","arguments":{"account_id":"acct-1"}}"#).unwrap();
    let _forged = Authorized { call, id: None };
}
