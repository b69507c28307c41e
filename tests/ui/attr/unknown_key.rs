// A misspelled attribute argument.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc", nmae = "get-sum")]
fn add(a: i64, b: i64) -> calc::GetSumOutput {
    unimplemented!("{a}{b}")
}

fn main() {}
