// A required argument taken as an `Option`.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc")]
fn echo(text: Option<String>, shout: Option<bool>, times: i64) -> String {
    format!("{text:?}{shout:?}{times}")
}

fn main() {}
