// A parameter whose type differs from the generated field type.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc", name = "get-sum")]
fn add(a: i64, b: i32) -> calc::GetSumOutput {
    unimplemented!("{a}{b}")
}

fn main() {}
