// A toolset is an inherent impl.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

struct Calc;
trait Tools {
    fn echo(&self, text: String, shout: Option<bool>, times: i64) -> String;
}

#[toolseal::toolset(registry = "calc")]
impl Tools for Calc {
    fn echo(&self, text: String, shout: Option<bool>, times: i64) -> String {
        format!("{text}{shout:?}{times}")
    }
}

fn main() {}
