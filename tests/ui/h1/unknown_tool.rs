// A function for a tool the registry does not have.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc")]
fn divide(a: i64, b: i64) -> i64 {
    a / b
}

fn main() {}
