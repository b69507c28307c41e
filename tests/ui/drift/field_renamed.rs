// `echo.text` was renamed `message` in the registry.

mod calc {
    // The registry changed under this implementation: `calc_renamed` is the new `calc`.
    #[allow(unused_imports)]
    pub use toolseal_ui::calc_renamed::*;
}

#[toolseal::tool(registry = "calc_renamed", module = crate::calc)]
fn echo(text: String, shout: Option<bool>, times: i64) -> String {
    format!("{text}{shout:?}{times}")
}

fn main() {}
