// `echo` gained a required argument `lang`.

mod calc {
    // The registry changed under this implementation: `calc_required` is the new `calc`.
    #[allow(unused_imports)]
    pub use toolseal_ui::calc_required::*;
}

#[toolseal::tool(registry = "calc_required", module = crate::calc)]
fn echo(text: String, shout: Option<bool>, times: i64) -> String {
    format!("{text}{shout:?}{times}")
}

fn main() {}
