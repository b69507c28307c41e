// Tool names that are not Rust identifiers (`get-sum`) or are keywords (`type`).

mod calc {
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc", name = "get-sum")]
fn get_sum(a: i64, b: i64) -> calc::GetSumOutput {
    serde_json::from_value(serde_json::json!({ "sum": a + b })).unwrap()
}

#[toolseal::tool(registry = "calc")]
fn r#type() -> &'static str {
    "keyword"
}

fn main() {
    assert_eq!(get_sum(1, 2).sum, 3);
    assert_eq!(r#type(), "keyword");
}
