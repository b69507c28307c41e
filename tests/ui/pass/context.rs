// A context parameter, marked `#[ctx]`, passed through `dispatch`.

mod calc {
    pub use toolseal_ui::calc::*;
}

use std::cell::Cell;

struct Calc;

struct Meter {
    calls: Cell<u32>,
}

#[toolseal::toolset(registry = "calc")]
impl Calc {
    #[tool(name = "get-sum")]
    fn add(#[ctx] meter: &Meter, a: i64, b: i64) -> calc::GetSumOutput {
        meter.calls.set(meter.calls.get() + 1);
        serde_json::from_value(serde_json::json!({ "sum": a + b })).unwrap()
    }
    #[tool]
    fn echo(&self, text: String, #[ctx] meter: &Meter, shout: Option<bool>, times: i64) -> String {
        meter.calls.set(meter.calls.get() + 1);
        format!("{text}{shout:?}{times}")
    }
    #[tool]
    fn r#type(&self) {}
}

fn main() {
    let meter = Meter { calls: Cell::new(0) };
    for call in [r#"{"name":"get-sum","arguments":{"a":1,"b":2}}"#, r#"{"name":"echo","arguments":{"text":"x"}}"#, r#"{"name":"type"}"#] {
        Calc.dispatch(calc::ToolCall::from_json(call.as_bytes()).unwrap(), &meter).unwrap();
    }
    assert_eq!(meter.calls.get(), 2);
}
