// Only the pipeline turns a resolved call into an authorized one, after the gate allowed it.

use toolseal::pipeline::{Authorized, Resolved};
use toolseal_ui::bank::ToolCall;

fn main() {
    let call = ToolCall::from_json(br#"{"name":"get_balance","arguments":{"account_id":"acct-1"}}"#).unwrap();
    let _forged: Authorized<ToolCall> = Resolved::trusted_program_call(call).authorize();
}
