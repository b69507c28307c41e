//! Compiles the bank registry into `$OUT_DIR/toolseal/bank.rs` (the sealed `ToolCall`).

fn main() -> Result<(), toolseal_build::Error> {
    toolseal_build::Config::new().registry_as("registry/bank.json", "bank").compile()
}
