// A parameter the tool does not declare.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc")]
fn echo(text: String, shout: Option<bool>, times: i64, volume: u8) -> String {
    format!("{text}{shout:?}{times}{volume}")
}

fn main() {}
