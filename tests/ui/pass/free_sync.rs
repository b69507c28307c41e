// A free, synchronous function taking the arguments field by field.

mod calc {
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc")]
fn echo(text: String, shout: Option<bool>, times: i64) -> String {
    let text = if shout == Some(true) { text.to_uppercase() } else { text };
    text.repeat(times as usize)
}

fn main() {
    assert_eq!(echo("ab".into(), Some(true), 2), "ABAB");
}
