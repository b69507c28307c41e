// The `type` tool was removed from the registry.

mod calc {
    // The registry changed under this implementation: `calc_removed` is the new `calc`.
    #[allow(unused_imports)]
    pub use toolseal_ui::calc_removed::*;
}

#[toolseal::tool(registry = "calc_removed", module = crate::calc)]
fn r#type() -> &'static str {
    "calc"
}

fn main() {}
