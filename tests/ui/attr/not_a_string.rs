// `name` takes a string literal.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc", name = get_sum)]
fn add(a: i64, b: i64) -> calc::GetSumOutput {
    unimplemented!("{a}{b}")
}

fn main() {}
