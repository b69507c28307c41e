// Several mistakes, several errors, in one build (and nothing else).

mod calc {
    #[allow(unused_imports)]
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc")]
fn echo(text: String, shout: Option<bool>) -> String {
    format!("{text}{shout:?}")
}

#[toolseal::tool(registry = "calc", name = "get-summ")]
fn add(a: i64, b: i64) -> calc::GetSumOutput {
    unimplemented!("{a}{b}")
}

fn uses_both() -> String {
    let _ = add(1, 2);
    echo("x".into(), None)
}

fn main() {}
