// An argument with a default is never absent: no `Option`.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc")]
fn echo(text: String, shout: Option<bool>, times: Option<i64>) -> String {
    format!("{text}{shout:?}{times:?}")
}

fn main() {}
