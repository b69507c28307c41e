// The argument struct of another tool.

mod bank {
    #[allow(unused_imports)]
    pub use toolseal_ui::bank::*;
}

#[toolseal::tool(registry = "bank")]
fn transfer_funds(args: bank::GetBalanceArgs) {
    let _ = args;
}

fn main() {}
