// An executor takes only an `Authorized` call: a resolved one has not passed the gate.

use toolseal::pipeline::{Authorized, Execute, Resolved};
use toolseal_ui::bank::ToolCall;

fn main() {
    let call = ToolCall::from_json(br#"{"name":"get_balance","arguments":{"account_id":"acct-1"}}"#).unwrap();
    let resolved = Resolved::trusted_program_call(call);
    let exec = |a: Authorized<ToolCall>| -> Result<(), String> { drop(a); Ok(()) };
    let _ = Execute::execute(&exec, resolved);
}
