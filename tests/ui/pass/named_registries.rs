// Two registries in one crate, each with its own exhaustive toolset; one reached by an explicit `module` path.

mod calc {
    pub use toolseal_ui::calc::*;
}

struct Calc;
struct Bank;

#[toolseal::toolset(registry = "calc")]
impl Calc {
    #[tool(name = "get-sum")]
    fn add(&self, a: i64, b: i64) -> calc::GetSumOutput {
        serde_json::from_value(serde_json::json!({ "sum": a + b })).unwrap()
    }
    #[tool]
    fn echo(&self, text: String, shout: Option<bool>, times: i64) -> String {
        format!("{text}{shout:?}{times}")
    }
    #[tool]
    fn r#type(&self) {}
}

#[toolseal::toolset(registry = "bank", module = toolseal_ui::bank)]
impl Bank {
    #[tool]
    fn transfer_funds(&mut self, args: toolseal_ui::bank::TransferFundsArgs) -> bool {
        args.amount.get() < &100.0
    }
    #[tool]
    fn get_balance(&mut self, args: toolseal_ui::bank::GetBalanceArgs) -> f64 {
        let _ = args;
        1.0
    }
    #[tool]
    fn list_transactions(&mut self, args: toolseal_ui::bank::ListTransactionsArgs) -> Vec<String> {
        vec![args.account_id.into_inner()]
    }
    #[tool]
    fn freeze_account(&mut self, args: toolseal_ui::bank::FreezeAccountArgs) {
        let _ = args;
    }
}

fn main() {
    let sum = Calc.dispatch(calc::ToolCall::from_json(br#"{"name":"get-sum","arguments":{"a":1,"b":2}}"#).unwrap()).unwrap();
    assert_eq!(sum, serde_json::json!({ "sum": 3 }));
    let call = toolseal_ui::bank::ToolCall::from_json(br#"{"name":"list_transactions","arguments":{"account_id":"acct-9"}}"#).unwrap();
    assert_eq!(Bank.dispatch(call).unwrap(), serde_json::json!(["acct-9"]));
}
