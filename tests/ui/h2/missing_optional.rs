// Optional arguments must be taken too: nothing the model sends is lost.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc")]
fn echo(text: String) -> String {
    text
}

fn main() {}
