// `dispatch` passes one context: every `#[ctx]` has the same type.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

struct Calc;
struct A;
struct B;

#[toolseal::toolset(registry = "calc")]
impl Calc {
    #[tool(name = "get-sum")]
    fn add(&self, #[ctx] _a: &A, a: i64, b: i64) -> calc::GetSumOutput {
        unimplemented!("{a}{b}")
    }
    #[tool]
    fn echo(&self, #[ctx] _b: &B, text: String, shout: Option<bool>, times: i64) -> String {
        format!("{text}{shout:?}{times}")
    }
    #[tool]
    fn r#type(&self) {}
}

fn main() {}
