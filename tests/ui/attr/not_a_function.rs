// `#[tool]` goes on functions.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc")]
struct Echo;

fn main() {}
