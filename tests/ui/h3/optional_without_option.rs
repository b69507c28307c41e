// An optional argument (no default) taken without `Option`.

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc")]
fn echo(text: String, shout: bool, times: i64) -> String {
    format!("{text}{shout}{times}")
}

fn main() {}
