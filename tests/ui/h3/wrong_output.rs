// A return type that is not the generated output type.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc", name = "get-sum")]
fn add(a: i64, b: i64) -> Result<i64, String> {
    Ok(a + b)
}

fn main() {}
