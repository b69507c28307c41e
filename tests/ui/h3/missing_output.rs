// The registry declares an outputSchema; the function returns nothing.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc", name = "get-sum")]
fn add(a: i64, b: i64) {
    let _ = a + b;
}

fn main() {}
