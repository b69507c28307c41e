//! The bank registry (`examples/transfer_funds/registry/bank.json`) compiled for
//! the framework examples in `src/bin`: an rmcp server, async-openai and genai
//! responses, a rig agent.

/// The bank registry: `bank::ToolCall` and one `…Args` struct per tool.
pub mod bank {
    toolseal::include_registry!("bank");
}

/// What the bank's tools answer for a resolved call (every example runs the same tools).
pub fn run(call: &bank::ToolCall) -> String {
    match call {
        bank::ToolCall::TransferFunds(a) => format!("sent {} {} to {}", a.amount.get(), a.currency.as_str(), a.recipient_id.get()),
        bank::ToolCall::GetBalance(a) => format!("{}: 100.00", a.account_id.get()),
        bank::ToolCall::ListTransactions(a) => format!("{}: no transactions", a.account_id.get()),
        bank::ToolCall::FreezeAccount(a) => format!("{} frozen", a.account_id.get()),
    }
}
