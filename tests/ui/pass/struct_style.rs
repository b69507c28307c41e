// The whole generated argument struct as the one parameter.

mod bank {
    pub use toolseal_ui::bank::*;
}

#[toolseal::tool(registry = "bank")]
fn transfer_funds(args: bank::TransferFundsArgs) -> String {
    format!("{} {} to {}", args.amount.get(), args.currency.as_str(), args.recipient_id.get())
}

fn main() {
    let bank::ToolCall::TransferFunds(args) = bank::ToolCall::from_json(br#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-1","amount":5}}"#).unwrap() else {
        panic!("transfer_funds resolves to its variant");
    };
    assert_eq!(transfer_funds(args), "5 EUR to acct-1");
}
