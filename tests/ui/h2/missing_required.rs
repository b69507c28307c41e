// A required argument the function does not take.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc", name = "get-sum")]
fn add(a: i64) -> calc::GetSumOutput {
    unimplemented!("{a}")
}

fn main() {}
