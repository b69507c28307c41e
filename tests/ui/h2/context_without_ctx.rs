// A context value taken without `#[ctx]` reads as an undeclared argument.

mod bank {
    #[allow(unused_imports)]
    pub use toolseal_ui::bank::*;
}

struct Session;

#[toolseal::tool(registry = "bank")]
fn get_balance(session: &Session, account_id: bank::GetBalanceAccountId) -> f64 {
    let _ = (session, account_id);
    0.0
}

fn main() {}
