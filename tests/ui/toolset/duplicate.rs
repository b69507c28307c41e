// Two implementations of one tool.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

struct Calc;

#[toolseal::toolset(registry = "calc")]
impl Calc {
    #[tool(name = "get-sum")]
    fn add(&self, a: i64, b: i64) -> calc::GetSumOutput {
        unimplemented!("{a}{b}")
    }
    #[tool]
    fn echo(&self, text: String, shout: Option<bool>, times: i64) -> String {
        format!("{text}{shout:?}{times}")
    }
    #[tool(name = "echo")]
    fn echo_again(&self, text: String, shout: Option<bool>, times: i64) -> String {
        format!("{text}{shout:?}{times}")
    }
    #[tool]
    fn r#type(&self) {}
}

fn main() {}
