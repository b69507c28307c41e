// A registry tool without an implementation: dispatch could not be exhaustive.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

struct Calc;

#[toolseal::toolset(registry = "calc")]
impl Calc {
    #[tool]
    fn echo(&self, text: String, shout: Option<bool>, times: i64) -> String {
        format!("{text}{shout:?}{times}")
    }
}

fn main() {}
