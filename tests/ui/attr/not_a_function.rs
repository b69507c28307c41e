// `#[tool]` goes on functions.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_fixtures::calc::*;
}

#[toolseal::tool(registry = "calc")]
struct Echo;

fn main() {}
