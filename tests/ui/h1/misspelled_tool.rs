// A misspelled tool name: the closest registry names are suggested.

mod bank {
    #[allow(unused_imports)]
    pub use toolseal_ui::bank::*;
}

#[toolseal::tool(registry = "bank")]
fn transfer_fund(recipient_id: bank::TransferFundsRecipientId, amount: bank::TransferFundsAmount) {
    let _ = (recipient_id, amount);
}

fn main() {}
