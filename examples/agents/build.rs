//! The bank registry of the tutorial, compiled into `bank::ToolCall`.

fn main() -> Result<(), toolseal_build::Error> {
    toolseal_build::Config::new().registry_as("../transfer_funds/registry/bank.json", "bank").compile()
}
