// `get-sum.b` became a `number` in the registry.

mod calc {
    // The registry changed under this implementation: `calc_retyped` is the new `calc`.
    #[allow(unused_imports)]
    pub use toolseal_ui::calc_retyped::*;
}

#[toolseal::tool(registry = "calc_retyped", module = crate::calc, name = "get-sum")]
fn add(a: i64, b: i64) -> calc::GetSumOutput {
    unimplemented!("{a}{b}")
}

fn main() {}
